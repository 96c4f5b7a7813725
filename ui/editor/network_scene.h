#pragma once
// The editor's canvas as a view of a NetworkDocument: one NodeItem per layer and one EdgeItem per
// connection, kept in step with the document by layer name whenever it says changed(). The scene
// never changes the network itself. It turns what the learner does into the document's edits:
// a drag from port to port is connect(), a node drag is move_layers() with one gesture per drag
// (one undo step), a palette drop is add_layer(), Del and the context menus are remove()
// and disconnect(), Ctrl+C/X/V go through the clipboard as project::layers_to_clipboard text.
// A refused edit comes back from the document as its refused(reason) signal, which the window
// shows; the scene adds no message of its own.
#include <QGraphicsScene>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ui/editor/node_item.h"

class QGraphicsPathItem;
class QMenu;

namespace bps::ui {

class EdgeItem;
class NetworkDocument;

class NetworkScene : public QGraphicsScene {
    Q_OBJECT
public:
    // What the palette puts on a drag, and the scene accepts as a drop: the entry's label, UTF-8.
    static constexpr const char* layer_mime_type = "application/x-backprop-layer";
    // What copy_selection puts on the clipboard beside text/plain: project::layers_to_clipboard.
    static constexpr const char* layers_mime_type = "application/x-backprop-layers";
    // How far each paste lands from the copied layers (down and right, so both stay visible).
    static constexpr double paste_offset = 40;

    NetworkScene(NetworkDocument* document, QObject* parent = nullptr);
    ~NetworkScene() override;

    NetworkDocument* document() const { return document_; }

    // The selected layers' names, in the network's order.
    QStringList selected_layers() const;

    // Lookups by layer name (for the window and the tests); null when there is none.
    NodeItem* node_item(const QString& name) const;
    EdgeItem* edge_item(const QString& from, const QString& to) const;
    int node_count() const { return static_cast<int>(nodes_.size()); }
    int edge_count() const { return static_cast<int>(edges_.size()); }

    // The context menu for `scene_pos`: on a node (Copy, Cut, Delete, Disconnect inputs), on an
    // edge (Delete connection) or on the empty canvas (Add layer ▸ group ▸ entry, Paste, Tidy,
    // Select all). A node or edge under the point is selected first, as a right click does.
    // The caller owns the menu.
    QMenu* create_context_menu(const QPointF& scene_pos, QWidget* parent = nullptr);

public slots:
    void select_layers(const QStringList& names);
    void select_all();
    // The selected nodes and connections, through document->remove: one undo step.
    void delete_selection();
    void copy_selection();
    void cut_selection();
    // The clipboard's layers, moved by paste_offset from where they were copied (another
    // paste_offset for each further paste of the same copy), then selected.
    void paste();

signals:
    // The selected layers changed (by the learner or by select_layers); names in network order.
    void selectionNamesChanged(const QStringList& names);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;
    void dragEnterEvent(QGraphicsSceneDragDropEvent* event) override;
    void dragMoveEvent(QGraphicsSceneDragDropEvent* event) override;
    void dropEvent(QGraphicsSceneDragDropEvent* event) override;

private:
    // A connection being drawn from a port: the fixed end and the line that follows the mouse.
    struct PendingConnection {
        NodeItem* node = nullptr;
        NodeItem::Port port = NodeItem::Port::none;
        QGraphicsPathItem* line = nullptr;
        NodeItem* target = nullptr;  // the node whose port is under the mouse
    };

    void sync();
    void sync_scene_rect();
    void emit_selection_if_changed();
    // The node whose port lies near `scene_pos`, with the port.
    std::pair<NodeItem*, NodeItem::Port> port_at(const QPointF& scene_pos) const;
    std::optional<std::pair<QString, QString>> connection_to(const QPointF& scene_pos) const;
    void update_pending_connection(const QPointF& scene_pos);
    void finish_pending_connection(const QPointF& scene_pos);
    void cancel_pending_connection();
    void move_dragged_nodes();
    void nudge_selection(double dx, double dy, bool new_gesture);
    void disconnect_inputs(const QString& name);
    QMenu* add_layer_menu(const QPointF& scene_pos, QWidget* parent);

    NetworkDocument* document_;
    std::map<QString, NodeItem*> nodes_;
    std::map<std::pair<QString, QString>, EdgeItem*> edges_;
    std::vector<QString> layer_order_;  // the layer names at the last sync, to tell a rename
    bool syncing_ = false;              // selection changes made by the scene itself emit one signal at the end
    QStringList last_selection_;

    PendingConnection pending_;
    int drag_gesture_ = 0;  // the gesture of the node drag in progress; 0 when none
    bool dragging_nodes_ = false;
    int nudge_gesture_ = 0;

    std::string copied_text_;  // the clipboard text this scene last copied or pasted
    int pastes_of_copy_ = 0;   // how often it has been pasted: each paste lands one offset further
};

}  // namespace bps::ui
