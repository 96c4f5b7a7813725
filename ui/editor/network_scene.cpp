#include "ui/editor/network_scene.h"

#include <QAction>
#include <QClipboard>
#include <QGraphicsPathItem>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneDragDropEvent>
#include <QGraphicsSceneMouseEvent>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMenu>
#include <QMimeData>
#include <QPen>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <set>

#include "engine/project/network_edits.h"
#include "ui/document/network_document.h"
#include "ui/editor/edge_item.h"

namespace bps::ui {

namespace {

// Empty canvas kept around the nodes, so that there is room to pan, zoom about the cursor and
// drop new layers beyond the last one.
constexpr double canvas_margin = 800;
// Where a layer without a canvas position (one built in code) is drawn: a left-to-right chain.
constexpr double chain_spacing = 160;
constexpr double nudge_step = 10;

QString qstring(const std::string& text) {
    return QString::fromStdString(text);
}

model::CanvasPosition canvas_position(const QPointF& pos) {
    // Whole units: project files stay readable, and a node never drifts by fractions.
    return {std::round(pos.x()), std::round(pos.y())};
}

QPointF layer_pos(const model::LayerSpec& layer, std::size_t index) {
    if (layer.position) return QPointF(layer.position->x, layer.position->y);
    return QPointF(static_cast<double>(index) * chain_spacing, 0);
}

// A new node is centred on the point where it is dropped or asked for.
model::CanvasPosition centred_at(const QPointF& scene_pos) {
    return canvas_position(scene_pos - QPointF(NodeItem::width / 2, NodeItem::height / 2));
}

std::vector<std::string> std_names(const QStringList& names) {
    std::vector<std::string> result;
    result.reserve(static_cast<std::size_t>(names.size()));
    for (const QString& name : names) result.push_back(name.toStdString());
    return result;
}

}  // namespace

NetworkScene::NetworkScene(NetworkDocument* document, QObject* parent) : QGraphicsScene(parent), document_(document) {
    connect(document_, &NetworkDocument::changed, this, &NetworkScene::sync);
    // Another project: no layer of the old one stays selected, even where a name comes back.
    connect(document_, &NetworkDocument::replaced, this, [this] {
        layer_order_.clear();
        clearSelection();
    });
    connect(this, &QGraphicsScene::selectionChanged, this, [this] {
        if (!syncing_) emit_selection_if_changed();
    });
    sync();
}

NetworkScene::~NetworkScene() {
    // Edges before their nodes (QGraphicsScene would delete them in any order), and no selection
    // signals from a scene half gone.
    syncing_ = true;
    cancel_pending_connection();
    for (auto& [names, edge] : edges_) delete edge;
    edges_.clear();
    for (auto& [name, node] : nodes_) delete node;
    nodes_.clear();
}

// --- Following the document ---

void NetworkScene::sync() {
    syncing_ = true;
    const model::NetworkSpec& spec = document_->network();
    const model::GraphReport& report = document_->report();

    std::set<QString> names;
    for (const model::LayerSpec& layer : spec.layers) names.insert(qstring(layer.name));
    std::set<std::pair<QString, QString>> wanted_edges;
    for (const model::LayerSpec& layer : spec.layers)
        for (const std::string& input : layer.inputs)
            if (names.count(qstring(input))) wanted_edges.insert({qstring(input), qstring(layer.name)});

    if (pending_.line &&
        (!names.count(pending_.node->name()) || (pending_.target && !names.count(pending_.target->name()))))
        cancel_pending_connection();

    // A rename (the inspector's, or its undo) is the one edit that changes a name in place: the
    // same number of layers, and the old name gone from where the new one is. The node keeps its
    // item, so the learner keeps it selected.
    if (layer_order_.size() == spec.layers.size())
        for (std::size_t i = 0; i < spec.layers.size(); ++i) {
            const QString name = qstring(spec.layers[i].name);
            const QString& old_name = layer_order_[i];
            if (name == old_name || names.count(old_name) || nodes_.count(name) || !nodes_.count(old_name)) continue;
            NodeItem* node = nodes_.at(old_name);
            nodes_.erase(old_name);
            node->set_name(name);
            nodes_[name] = node;
        }
    layer_order_.clear();
    for (const model::LayerSpec& layer : spec.layers) layer_order_.push_back(qstring(layer.name));

    // Edges first: an edge refers to its nodes.
    for (auto it = edges_.begin(); it != edges_.end();) {
        if (wanted_edges.count(it->first)) {
            ++it;
            continue;
        }
        removeItem(it->second);
        delete it->second;
        it = edges_.erase(it);
    }
    for (auto it = nodes_.begin(); it != nodes_.end();) {
        if (names.count(it->first)) {
            ++it;
            continue;
        }
        removeItem(it->second);
        delete it->second;
        it = nodes_.erase(it);
    }
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const model::LayerSpec& layer = spec.layers[i];
        const QString name = qstring(layer.name);
        NodeItem*& node = nodes_[name];
        if (!node) {
            node = new NodeItem(name);
            addItem(node);
        }
        node->set_layer(layer, i < report.nodes.size() ? &report.nodes[i] : nullptr);
        const QPointF pos = layer_pos(layer, i);
        if (node->pos() != pos) node->setPos(pos);
    }
    for (const auto& edge : wanted_edges) {
        if (edges_.count(edge)) continue;
        auto* item = new EdgeItem(nodes_.at(edge.first), nodes_.at(edge.second));
        addItem(item);
        edges_[edge] = item;
    }
    syncing_ = false;
    sync_scene_rect();
    emit_selection_if_changed();
}

void NetworkScene::sync_scene_rect() {
    QRectF nodes;
    for (const auto& [name, node] : nodes_) nodes = nodes.united(node->sceneBoundingRect());
    QRectF canvas = nodes.adjusted(-canvas_margin, -canvas_margin, canvas_margin, canvas_margin);
    if (nodes.isNull()) canvas = QRectF(-canvas_margin, -canvas_margin, 2 * canvas_margin, 2 * canvas_margin);
    // While nodes are dragged the canvas only grows: shrinking it under the mouse makes the view jump.
    setSceneRect(dragging_nodes_ ? sceneRect().united(canvas) : canvas);
}

void NetworkScene::emit_selection_if_changed() {
    const QStringList names = selected_layers();
    if (names == last_selection_) return;
    last_selection_ = names;
    emit selectionNamesChanged(names);
}

QStringList NetworkScene::selected_layers() const {
    QStringList names;
    for (const model::LayerSpec& layer : document_->network().layers) {
        const auto it = nodes_.find(qstring(layer.name));
        if (it != nodes_.end() && it->second->isSelected()) names << it->first;
    }
    return names;
}

NodeItem* NetworkScene::node_item(const QString& name) const {
    const auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : it->second;
}

EdgeItem* NetworkScene::edge_item(const QString& from, const QString& to) const {
    const auto it = edges_.find({from, to});
    return it == edges_.end() ? nullptr : it->second;
}

// --- Selection and the clipboard ---

void NetworkScene::select_layers(const QStringList& names) {
    syncing_ = true;  // one selectionNamesChanged at the end, not one per item
    clearSelection();
    for (const QString& name : names)
        if (NodeItem* node = node_item(name)) node->setSelected(true);
    syncing_ = false;
    emit_selection_if_changed();
}

void NetworkScene::select_all() {
    syncing_ = true;
    for (const auto& [name, node] : nodes_) node->setSelected(true);
    for (const auto& [names, edge] : edges_) edge->setSelected(true);
    syncing_ = false;
    emit_selection_if_changed();
}

void NetworkScene::delete_selection() {
    const QStringList layers = selected_layers();
    std::vector<std::pair<std::string, std::string>> connections;
    for (const auto& [names, edge] : edges_)
        if (edge->isSelected()) connections.emplace_back(names.first.toStdString(), names.second.toStdString());
    if (!layers.isEmpty() || !connections.empty()) document_->remove(std_names(layers), connections);
}

void NetworkScene::copy_selection() {
    const QStringList layers = selected_layers();
    if (layers.isEmpty()) return;
    const std::string text = project::layers_to_clipboard(document_->network(), std_names(layers));
    auto* mime = new QMimeData;
    mime->setText(qstring(text));
    mime->setData(layers_mime_type, QByteArray::fromStdString(text));
    QGuiApplication::clipboard()->setMimeData(mime);
    copied_text_ = text;
    pastes_of_copy_ = 0;
}

void NetworkScene::cut_selection() {
    copy_selection();
    const QStringList layers = selected_layers();
    if (!layers.isEmpty()) document_->remove_layers(std_names(layers));
}

void NetworkScene::paste() {
    const QMimeData* mime = QGuiApplication::clipboard()->mimeData();
    if (!mime) return;
    std::string text;
    if (mime->hasFormat(layers_mime_type))
        text = mime->data(layers_mime_type).toStdString();
    else if (mime->hasText())
        text = mime->text().toStdString();  // the document says so if it is not a network's layers
    else
        return;
    if (text == copied_text_) {
        ++pastes_of_copy_;
    } else {
        copied_text_ = text;
        pastes_of_copy_ = 1;
    }
    const double offset = paste_offset * pastes_of_copy_;
    std::vector<std::string> pasted;
    if (document_->paste(text, offset, offset, &pasted)) return;
    QStringList names;
    for (const std::string& name : pasted) names << qstring(name);
    select_layers(names);
}

// --- Connecting ports ---

std::pair<NodeItem*, NodeItem::Port> NetworkScene::port_at(const QPointF& scene_pos) const {
    const QRectF near(scene_pos - QPointF(12, 12), QSizeF(24, 24));
    for (QGraphicsItem* item : items(near)) {  // topmost first
        if (item->type() != NodeItem::Type) continue;
        auto* node = static_cast<NodeItem*>(item);
        const NodeItem::Port port = node->port_at(scene_pos);
        if (port != NodeItem::Port::none) return {node, port};
    }
    return {nullptr, NodeItem::Port::none};
}

// The connection that releasing the pending drag at `scene_pos` would make: an output port to an
// input port of another node, in whichever direction it was drawn.
std::optional<std::pair<QString, QString>> NetworkScene::connection_to(const QPointF& scene_pos) const {
    if (!pending_.line) return std::nullopt;
    const auto [node, port] = port_at(scene_pos);
    if (!node || node == pending_.node || port == NodeItem::Port::none || port == pending_.port) return std::nullopt;
    if (pending_.port == NodeItem::Port::output) return std::pair{pending_.node->name(), node->name()};
    return std::pair{node->name(), pending_.node->name()};
}

void NetworkScene::update_pending_connection(const QPointF& scene_pos) {
    const auto connection = connection_to(scene_pos);
    NodeItem* target = connection ? port_at(scene_pos).first : nullptr;
    if (pending_.target != target) {
        if (pending_.target) pending_.target->set_port_highlight(NodeItem::Port::none);
        if (target)
            target->set_port_highlight(pending_.port == NodeItem::Port::output ? NodeItem::Port::input
                                                                               : NodeItem::Port::output);
        pending_.target = target;
    }
    // The line snaps to the port it would connect to, red when the document would refuse it
    // (the reason comes from the document on release).
    QPointF end = scene_pos;
    bool refused = false;
    if (connection) {
        end = pending_.port == NodeItem::Port::output ? target->input_anchor(connection->first)
                                                      : target->output_port_pos();
        refused = project::connection_refusal(document_->network(), connection->first.toStdString(),
                                              connection->second.toStdString())
                      .has_value();
    }
    const QPointF start =
        pending_.port == NodeItem::Port::output ? pending_.node->output_port_pos() : pending_.node->input_port_pos();
    pending_.line->setPath(pending_.port == NodeItem::Port::output ? EdgeItem::curve(start, end)
                                                                   : EdgeItem::curve(end, start));
    QPen pen = pending_.line->pen();
    pen.setColor(refused ? problem_colour(palette()) : palette().color(QPalette::Highlight));
    pending_.line->setPen(pen);
}

void NetworkScene::finish_pending_connection(const QPointF& scene_pos) {
    const auto connection = connection_to(scene_pos);
    cancel_pending_connection();
    // A refusal reaches the window through the document's refused signal.
    if (connection) document_->connect(connection->first.toStdString(), connection->second.toStdString());
}

void NetworkScene::cancel_pending_connection() {
    if (pending_.target) pending_.target->set_port_highlight(NodeItem::Port::none);
    if (pending_.node) pending_.node->set_port_highlight(NodeItem::Port::none);
    if (pending_.line) {
        removeItem(pending_.line);
        delete pending_.line;
    }
    pending_ = {};
}

// --- The mouse and the keyboard ---

void NetworkScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        const auto [node, port] = port_at(event->scenePos());
        if (node) {
            cancel_pending_connection();
            pending_.node = node;
            pending_.port = port;
            pending_.line = new QGraphicsPathItem;
            QPen pen(palette().color(QPalette::Highlight), 1.5, Qt::DashLine);
            pen.setCosmetic(true);
            pending_.line->setPen(pen);
            pending_.line->setZValue(2);
            addItem(pending_.line);
            node->set_port_highlight(port);
            update_pending_connection(event->scenePos());
            event->accept();  // no item drag and no rubber band
            return;
        }
    }
    QGraphicsScene::mousePressEvent(event);
    if (event->button() == Qt::LeftButton) {
        QGraphicsItem* grabber = mouseGrabberItem();
        dragging_nodes_ = grabber && grabber->type() == NodeItem::Type;
        drag_gesture_ = 0;  // taken at the first move, so a click is no undo step
    }
}

void NetworkScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
    if (pending_.line) {
        update_pending_connection(event->scenePos());
        event->accept();
        return;
    }
    QGraphicsScene::mouseMoveEvent(event);
    if (dragging_nodes_ && (event->buttons() & Qt::LeftButton)) move_dragged_nodes();
}

void NetworkScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
    if (pending_.line) {
        if (event->button() == Qt::LeftButton) finish_pending_connection(event->scenePos());
        event->accept();
        return;
    }
    QGraphicsScene::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton) {
        dragging_nodes_ = false;
        drag_gesture_ = 0;
        sync_scene_rect();
    }
}

void NetworkScene::move_dragged_nodes() {
    // Qt has moved the selected nodes; the document learns their new places. Every move of one
    // drag carries the drag's gesture, so the drag is one undo step.
    std::vector<std::pair<std::string, model::CanvasPosition>> moves;
    for (QGraphicsItem* item : selectedItems()) {
        if (item->type() != NodeItem::Type) continue;
        auto* node = static_cast<NodeItem*>(item);
        const model::LayerSpec* layer = document_->layer(node->name().toStdString());
        if (!layer) continue;
        const model::CanvasPosition at = canvas_position(node->pos());
        if (layer->position && layer->position->x == at.x && layer->position->y == at.y) continue;
        moves.emplace_back(layer->name, at);
    }
    if (moves.empty()) return;
    if (drag_gesture_ == 0) drag_gesture_ = document_->new_gesture();
    document_->move_layers(moves, drag_gesture_);
}

void NetworkScene::nudge_selection(double dx, double dy, bool new_gesture) {
    std::vector<std::pair<std::string, model::CanvasPosition>> moves;
    for (const QString& name : selected_layers())
        moves.emplace_back(name.toStdString(), canvas_position(nodes_.at(name)->pos() + QPointF(dx, dy)));
    if (moves.empty()) return;
    if (new_gesture || nudge_gesture_ == 0) nudge_gesture_ = document_->new_gesture();
    document_->move_layers(moves, nudge_gesture_);
}

void NetworkScene::keyPressEvent(QKeyEvent* event) {
    if (focusItem()) {
        QGraphicsScene::keyPressEvent(event);
        return;
    }
    // A held arrow key is one undo step; each new press is another.
    const bool new_gesture = !event->isAutoRepeat();
    const double step = (event->modifiers() & Qt::ShiftModifier) ? 1 : nudge_step;
    if (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace)
        delete_selection();
    else if (event->matches(QKeySequence::Copy))
        copy_selection();
    else if (event->matches(QKeySequence::Cut))
        cut_selection();
    else if (event->matches(QKeySequence::Paste))
        paste();
    else if (event->matches(QKeySequence::SelectAll))
        select_all();
    else if (event->key() == Qt::Key_Escape && pending_.line)
        cancel_pending_connection();
    else if (event->key() == Qt::Key_Left && !selected_layers().isEmpty())
        nudge_selection(-step, 0, new_gesture);
    else if (event->key() == Qt::Key_Right && !selected_layers().isEmpty())
        nudge_selection(step, 0, new_gesture);
    else if (event->key() == Qt::Key_Up && !selected_layers().isEmpty())
        nudge_selection(0, -step, new_gesture);
    else if (event->key() == Qt::Key_Down && !selected_layers().isEmpty())
        nudge_selection(0, step, new_gesture);
    else {
        QGraphicsScene::keyPressEvent(event);  // leaves it for the view (arrow keys scroll)
        return;
    }
    event->accept();
}

// --- Context menus ---

void NetworkScene::disconnect_inputs(const QString& name) {
    const model::LayerSpec* layer = document_->layer(name.toStdString());
    if (!layer) return;
    std::vector<std::pair<std::string, std::string>> connections;
    for (const std::string& input : layer->inputs) connections.emplace_back(input, layer->name);
    if (!connections.empty()) document_->remove({}, connections);
}

QMenu* NetworkScene::add_layer_menu(const QPointF& scene_pos, QWidget* parent) {
    auto* menu = new QMenu(tr("Add layer"), parent);
    for (const std::string& group : project::palette_groups()) {
        QMenu* group_menu = menu->addMenu(qstring(group));
        for (const project::PaletteEntry& entry : project::palette()) {
            if (entry.group != group) continue;
            QAction* action = group_menu->addAction(qstring(entry.label));
            action->setToolTip(qstring(entry.description));
            const std::string label = entry.label;
            connect(action, &QAction::triggered, this, [this, label, scene_pos] {
                std::string added;
                if (!document_->add_layer(label, centred_at(scene_pos), &added)) select_layers({qstring(added)});
            });
        }
    }
    return menu;
}

QMenu* NetworkScene::create_context_menu(const QPointF& scene_pos, QWidget* parent) {
    auto* menu = new QMenu(parent);
    QGraphicsItem* item = nullptr;
    for (QGraphicsItem* candidate : items(scene_pos))
        if (candidate->type() == NodeItem::Type || candidate->type() == EdgeItem::Type) {
            item = candidate;
            break;
        }
    if (item && !item->isSelected()) {  // as a right click in a file manager: the menu acts on what is under it
        syncing_ = true;
        clearSelection();
        item->setSelected(true);
        syncing_ = false;
        emit_selection_if_changed();
    }

    if (item && item->type() == NodeItem::Type) {
        menu->addAction(tr("Copy"), this, &NetworkScene::copy_selection);
        menu->addAction(tr("Cut"), this, &NetworkScene::cut_selection);
        menu->addAction(tr("Delete"), this, &NetworkScene::delete_selection);
        menu->addSeparator();
        const QString name = static_cast<NodeItem*>(item)->name();
        const model::LayerSpec* layer = document_->layer(name.toStdString());
        QAction* disconnect_action =
            menu->addAction(tr("Disconnect inputs"), this, [this, name] { disconnect_inputs(name); });
        disconnect_action->setEnabled(layer && !layer->inputs.empty());
    } else if (item) {
        auto* edge = static_cast<EdgeItem*>(item);
        const std::string from = edge->from().toStdString(), to = edge->to().toStdString();
        menu->addAction(tr("Delete connection"), this, [this, from, to] { document_->disconnect(from, to); });
    } else {
        menu->addMenu(add_layer_menu(scene_pos, menu));
        QAction* paste_action = menu->addAction(tr("Paste"), this, &NetworkScene::paste);
        const QMimeData* mime = QGuiApplication::clipboard()->mimeData();
        paste_action->setEnabled(mime && (mime->hasFormat(layers_mime_type) || mime->hasText()));
        menu->addSeparator();
        menu->addAction(tr("Tidy"), this, [this] { document_->tidy(); });
        menu->addAction(tr("Select all"), this, &NetworkScene::select_all);
    }
    return menu;
}

void NetworkScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
    cancel_pending_connection();
    QMenu* menu = create_context_menu(event->scenePos(), event->widget());
    menu->exec(event->screenPos());
    delete menu;
    event->accept();
}

// --- Drops from the palette ---

void NetworkScene::dragEnterEvent(QGraphicsSceneDragDropEvent* event) {
    if (!event->mimeData()->hasFormat(layer_mime_type)) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
}

void NetworkScene::dragMoveEvent(QGraphicsSceneDragDropEvent* event) {
    dragEnterEvent(event);
}

void NetworkScene::dropEvent(QGraphicsSceneDragDropEvent* event) {
    if (!event->mimeData()->hasFormat(layer_mime_type)) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
    const std::string label = event->mimeData()->data(layer_mime_type).toStdString();
    std::string added;
    if (!document_->add_layer(label, centred_at(event->scenePos()), &added)) select_layers({qstring(added)});
}

}  // namespace bps::ui
