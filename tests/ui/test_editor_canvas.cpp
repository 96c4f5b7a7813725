// The network editor's canvas under the offscreen platform: the scene mirrors the document, and
// what a learner does on it (drops, port drags, node drags, Del, copy and paste, context menus,
// zoom and pan) becomes the document's edits, checked in the document, its undo stack and the
// items. Mouse work goes through QTest on the view's viewport, as a real mouse's would.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGraphicsView>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/project/network_edits.h"
#include "engine/project/project.h"
#include "tests/ui/palette_label.h"
#include "tests/ui/qt_test_class.h"
#include "ui/document/network_document.h"
#include "ui/editor/edge_item.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/network_view.h"
#include "ui/editor/node_item.h"
#include "ui/editor/palette_dock.h"

using bps::model::LayerType;
using bps::ui::EdgeItem;
using bps::ui::NetworkDocument;
using bps::ui::NetworkScene;
using bps::ui::NetworkView;
using bps::ui::NodeItem;
using bps::ui::PaletteDock;

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

bps::model::CanvasPosition position_of(const NetworkDocument& document, const std::string& name) {
    const bps::model::LayerSpec* layer = document.layer(name);
    return layer && layer->position ? *layer->position : bps::model::CanvasPosition{-1e9, -1e9};
}

// A point on a node's body, away from its ports and its text's edges.
QPointF body_point(const NodeItem* node) {
    return node->mapToScene(QPointF(NodeItem::width / 2, NodeItem::height / 2));
}

QMenu* submenu(QMenu* menu, const QString& title) {
    for (QAction* action : menu->actions())
        if (action->menu() && action->text() == title) return action->menu();
    return nullptr;
}

QAction* action(QMenu* menu, const QString& text) {
    for (QAction* candidate : menu->actions())
        if (candidate->text() == text) return candidate;
    return nullptr;
}

}  // namespace

class EditorCanvasTest : public QObject {
    Q_OBJECT

    std::unique_ptr<NetworkDocument> document;
    std::unique_ptr<NetworkScene> scene;
    std::unique_ptr<NetworkView> view;

    QWidget* viewport() const { return view->viewport(); }
    QPoint at(const QPointF& scene_pos) const { return view->mapFromScene(scene_pos); }
    QString json() const { return qs(bps::project::project_to_json(document->project())); }

    // A left-button drag through the view, in `steps` moves.
    void drag(const QPointF& from, const QPointF& to, int steps = 1) {
        QTest::mousePress(viewport(), Qt::LeftButton, {}, at(from));
        for (int step = 1; step <= steps; ++step) QTest::mouseMove(viewport(), at(from + (to - from) * step / steps));
        QTest::mouseRelease(viewport(), Qt::LeftButton, {}, at(to));
    }

    // Adds a layer of `type` at `x`, `y` through the document and returns its name.
    QString add(LayerType type, double x, double y) {
        std::string added;
        const auto refused = document->add_layer(bps::test::palette_label(type), {x, y}, &added);
        if (refused) qWarning("add_layer refused: %s", refused->c_str());
        return qs(added);
    }

private slots:
    void init() {
        document = std::make_unique<NetworkDocument>();
        document->reset(bps::project::example_project("cnn"));
        scene = std::make_unique<NetworkScene>(document.get());
        view = std::make_unique<NetworkView>(scene.get());
        view->resize(900, 600);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    }

    void cleanup() {
        view.reset();
        scene.reset();
        document.reset();
    }

    void theSceneMirrorsTheCnnDocumentWithShapesAndParameters() {
        QCOMPARE(scene->node_count(), 11);
        QCOMPARE(scene->edge_count(), 10);
        const auto& layers = document->network().layers;
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const NodeItem* node = scene->node_item(qs(layers[i].name));
            QVERIFY2(node, layers[i].name.c_str());
            QCOMPARE(node->type_text(), QString(bps::model::layer_type_name(layers[i].type)));
            QCOMPARE(node->shape_text(), qs(document->report().nodes[i].shape_text()));
            QCOMPARE(node->pos(), QPointF(layers[i].position->x, layers[i].position->y));
        }
        const NodeItem* conv1 = scene->node_item("conv1");
        QCOMPARE(conv1->shape_text(), QString("(32, 26, 26)"));
        QCOMPARE(conv1->params_text(), QString("320 params"));  // 3*3*1*32 + 32
        // 5*5*64 = 1600 features into 128 units: 1600*128 + 128.
        QCOMPARE(scene->node_item("fc1")->params_text(), QString("204,928 params"));
        QCOMPARE(scene->node_item("relu1")->params_text(), QString("0 params"));
        QVERIFY(!scene->node_item("input")->has_input_port());
        QVERIFY(scene->node_item("fc1")->has_input_port());

        const EdgeItem* edge = scene->edge_item("conv1", "relu1");
        QVERIFY(edge);
        QVERIFY(!scene->edge_item("relu1", "conv1"));
        // The edge runs from conv1's output port to relu1's input port.
        QVERIFY(QLineF(edge->path().pointAtPercent(0), conv1->output_port_pos()).length() < NodeItem::port_radius + 1);
        QVERIFY(edge->path().pointAtPercent(1).x() < scene->node_item("relu1")->input_port_pos().x());
    }

    void anEdgeFollowsItsNodeWhenTheDocumentMovesIt() {
        const QPointF before = scene->edge_item("conv1", "relu1")->path().pointAtPercent(0);
        QVERIFY(!document->move_layers({{"conv1", {200, 330}}}));
        QCOMPARE(scene->node_item("conv1")->pos(), QPointF(200, 330));
        const QPointF after = scene->edge_item("conv1", "relu1")->path().pointAtPercent(0);
        QCOMPARE(after - before, QPointF(0, 130));
    }

    void aPaletteDropAddsANodeOfThatTypeCentredOnTheDropPoint() {
        const std::string label = bps::test::palette_label(LayerType::dense);
        view->centerOn(900, 450);
        const QPoint drop_point(300, 400);
        const QPointF scene_point = view->mapToScene(drop_point);
        QVERIFY(viewport()->acceptDrops());
        QMimeData mime;
        mime.setData(NetworkScene::layer_mime_type, QByteArray::fromStdString(label));
        QSignalSpy selection(scene.get(), &NetworkScene::selectionNamesChanged);

        QDragEnterEvent enter(drop_point, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDragMoveEvent move(drop_point, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport(), &move);
        QVERIFY(move.isAccepted());
        QDropEvent drop(drop_point, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport(), &drop);
        QVERIFY(drop.isAccepted());

        QCOMPARE(scene->node_count(), 12);
        const bps::model::LayerSpec& added = document->network().layers.back();
        QCOMPARE(added.type, LayerType::dense);
        const NodeItem* node = scene->node_item(qs(added.name));
        QVERIFY(node);
        QCOMPARE(node->type_text(), QString("Dense"));
        QCOMPARE(added.position->x, std::round(scene_point.x() - NodeItem::width / 2));
        QCOMPARE(added.position->y, std::round(scene_point.y() - NodeItem::height / 2));
        QVERIFY(node->sceneBoundingRect().contains(scene_point));
        QCOMPARE(scene->selected_layers(), QStringList{qs(added.name)});
        QCOMPARE(selection.count(), 1);
        QCOMPARE(selection.last().at(0).toStringList(), QStringList{qs(added.name)});

        // Other drags (a file, some text) are not the canvas's.
        QMimeData text;
        text.setText("Dense");
        QDragEnterEvent text_enter(drop_point, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport(), &text_enter);
        QVERIFY(!text_enter.isAccepted());
    }

    void draggingFromAnOutputPortToAnInputPortConnectsTheLayers() {
        const QString extra = add(LayerType::dense, 1800, 200);
        QVERIFY(!extra.isEmpty());
        view->centerOn(1700, 240);
        const int steps_before = document->undo_stack()->count();

        drag(scene->node_item("fc2")->output_port_pos(), scene->node_item(extra)->input_port_pos(), 4);

        QVERIFY(scene->edge_item("fc2", extra));
        QCOMPARE(scene->edge_count(), 11);
        QCOMPARE(document->layer(extra.toStdString())->inputs, std::vector<std::string>{"fc2"});
        QCOMPARE(document->undo_stack()->count(), steps_before + 1);
        // The connection being drawn is gone: only nodes and edges are left.
        QCOMPARE(scene->items().size(), qsizetype(scene->node_count() + scene->edge_count()));
        // Nothing moved.
        QCOMPARE(position_of(*document, "fc2").x, 1640.0);
    }

    void aPortDragCanAlsoRunFromAnInputPortBackToAnOutputPort() {
        const QString extra = add(LayerType::dense, 1800, 200);
        view->centerOn(1700, 240);
        drag(scene->node_item(extra)->input_port_pos(), scene->node_item("fc2")->output_port_pos(), 3);
        QVERIFY(scene->edge_item("fc2", extra));
    }

    void aPortDragReleasedOnTheEmptyCanvasChangesNothing() {
        const QString before = json();
        view->centerOn(1600, 240);
        drag(scene->node_item("fc2")->output_port_pos(), QPointF(1700, 500), 3);
        QCOMPARE(json(), before);
        QCOMPARE(scene->items().size(), qsizetype(scene->node_count() + scene->edge_count()));
    }

    void aCycleIsRefusedWithTheDocumentsMessageAndNoEdge() {
        QVERIFY(!document->disconnect("input", "conv1"));
        const auto expected = bps::project::connection_refusal(document->network(), "fc2", "conv1");
        QVERIFY(expected.has_value());
        QVERIFY2(expected->find("cycle") != std::string::npos, expected->c_str());
        const QString before = json();
        QSignalSpy refused(document.get(), &NetworkDocument::refused);

        // fc2 is at x 1640 and conv1 at 200: fit both in the view.
        view->fit_all();
        drag(scene->node_item("fc2")->output_port_pos(), scene->node_item("conv1")->input_port_pos(), 5);

        QCOMPARE(refused.count(), 1);
        QCOMPARE(refused.at(0).at(0).toString(), qs(*expected));
        QVERIFY(!scene->edge_item("fc2", "conv1"));
        QCOMPARE(scene->edge_count(), 9);
        QCOMPARE(json(), before);
    }

    void aSecondInputIntoADenseLayerIsRefusedWithTheDocumentsMessage() {
        const auto expected = bps::project::connection_refusal(document->network(), "relu3", "fc1");
        QVERIFY(expected.has_value());
        QSignalSpy refused(document.get(), &NetworkDocument::refused);
        view->centerOn(1400, 240);

        drag(scene->node_item("relu3")->output_port_pos(), scene->node_item("fc1")->input_port_pos(), 3);

        QCOMPARE(refused.count(), 1);
        QCOMPARE(refused.at(0).at(0).toString(), qs(*expected));
        QVERIFY(!scene->edge_item("relu3", "fc1"));
        QCOMPARE(scene->edge_count(), 10);
    }

    void aMergeOfMismatchedShapesIsConnectedAndMarkedAsAProblem() {
        const QString merge = add(LayerType::add, 700, 400);
        QVERIFY(!merge.isEmpty());
        view->centerOn(600, 330);
        drag(scene->node_item("relu1")->output_port_pos(), scene->node_item(merge)->input_port_pos(), 3);
        drag(scene->node_item("relu2")->output_port_pos(), scene->node_item(merge)->input_port_pos(), 3);
        QVERIFY(scene->edge_item("relu1", merge));
        QVERIFY(scene->edge_item("relu2", merge));
        // Both edges end on the one port, one above the other.
        const QPointF first_end = scene->edge_item("relu1", merge)->path().pointAtPercent(1);
        const QPointF second_end = scene->edge_item("relu2", merge)->path().pointAtPercent(1);
        QVERIFY(first_end.y() < second_end.y());
        const NodeItem* node = scene->node_item(merge);
        QVERIFY(node->shows_problem());
        QCOMPARE(node->outline_colour(), bps::ui::problem_colour(scene->palette()));
    }

    void aNodeWithAProblemHasARedOutlineAndItsMessageAsTooltip() {
        const QString loose = add(LayerType::dense, 900, 450);
        const bps::model::NodeReport* report = document->node_report(loose.toStdString());
        QVERIFY(report);
        QVERIFY(!report->problems.empty());
        QStringList messages;
        for (const auto& problem : report->problems) messages << qs(problem);

        const NodeItem* node = scene->node_item(loose);
        QVERIFY(node->shows_problem());
        QCOMPARE(node->toolTip(), messages.join('\n'));
        QCOMPARE(node->outline_colour(), bps::ui::problem_colour(scene->palette()));

        const NodeItem* fine = scene->node_item("conv1");
        QVERIFY(!fine->shows_problem());
        QCOMPARE(fine->toolTip(), QString());
        QVERIFY(fine->outline_colour() != bps::ui::problem_colour(scene->palette()));

        // Deleting the node's cause (here the node) clears it; undo brings the problem back.
        scene->select_layers({loose});
        scene->delete_selection();
        QVERIFY(!scene->node_item(loose));
        document->undo_stack()->undo();
        QVERIFY(scene->node_item(loose)->shows_problem());
    }

    void deleteSelectionThenUndoGivesTheSameProject() {
        const QString before = json();
        const int steps_before = document->undo_stack()->count();
        scene->select_layers({"relu1", "pool1"});
        scene->edge_item("fc1", "relu3")->setSelected(true);
        QCOMPARE(scene->selected_layers(), (QStringList{"relu1", "pool1"}));

        scene->delete_selection();

        QCOMPARE(scene->node_count(), 9);
        QVERIFY(!document->layer("relu1") && !document->layer("pool1"));
        QVERIFY(!scene->edge_item("fc1", "relu3"));
        QVERIFY(document->layer("relu3")->inputs.empty());
        QCOMPARE(scene->edge_count(), 6);  // 10 less conv1-relu1-pool1-conv2 and fc1-relu3
        QCOMPARE(document->undo_stack()->count(), steps_before + 1);
        QVERIFY(scene->selected_layers().isEmpty());

        document->undo_stack()->undo();
        QCOMPARE(json(), before);
        QCOMPARE(scene->node_count(), 11);
        QCOMPARE(scene->edge_count(), 10);
    }

    void theDeleteKeyRemovesASelectedConnection() {
        view->setFocus();
        view->centerOn(1400, 240);
        QTest::mouseClick(viewport(), Qt::LeftButton, {},
                          at(scene->edge_item("fc1", "relu3")->path().pointAtPercent(0.5)));
        QVERIFY(scene->edge_item("fc1", "relu3")->isSelected());
        QTest::keyClick(viewport(), Qt::Key_Delete);
        QVERIFY(!scene->edge_item("fc1", "relu3"));
        QCOMPARE(scene->node_count(), 11);
        QVERIFY(document->layer("relu3")->inputs.empty());
    }

    void copyAndPasteGiveUniquelyNamedNodesOffsetFromTheCopies() {
        scene->select_layers({"conv1", "relu1"});
        scene->copy_selection();
        const QMimeData* mime = QGuiApplication::clipboard()->mimeData();
        QVERIFY(mime->hasFormat(NetworkScene::layers_mime_type));
        QCOMPARE(mime->text().toStdString(),
                 bps::project::layers_to_clipboard(document->network(), {"conv1", "relu1"}));

        QSignalSpy refused(document.get(), &NetworkDocument::refused);
        scene->paste();

        QVERIFY2(refused.isEmpty(), refused.isEmpty() ? "" : qPrintable(refused.at(0).at(0).toString()));
        QCOMPARE(scene->node_count(), 13);
        const QStringList pasted = scene->selected_layers();
        QCOMPARE(pasted.size(), 2);
        std::set<std::string> names;
        for (const auto& layer : document->network().layers) names.insert(layer.name);
        QCOMPARE(names.size(), std::size_t{13});
        QVERIFY(!pasted.contains("conv1") && !pasted.contains("relu1"));
        // The copy of conv1 comes first and keeps its edge to the copy of relu1.
        QCOMPARE(document->layer(pasted[0].toStdString())->type, LayerType::conv2d);
        QVERIFY(scene->edge_item(pasted[0], pasted[1]));
        QCOMPARE(position_of(*document, pasted[0].toStdString()).x, 200.0 + NetworkScene::paste_offset);
        QCOMPARE(position_of(*document, pasted[0].toStdString()).y, 200.0 + NetworkScene::paste_offset);

        // A second paste of the same copy lands one more offset away, with names of its own.
        scene->paste();
        QCOMPARE(scene->node_count(), 15);
        const QStringList again = scene->selected_layers();
        QCOMPARE(again.size(), 2);
        QVERIFY(!pasted.contains(again[0]) && !pasted.contains(again[1]));
        QCOMPARE(position_of(*document, again[0].toStdString()).x, 200.0 + 2 * NetworkScene::paste_offset);
    }

    void cutRemovesTheLayersInOneStepAndPasteBringsThemBack() {
        scene->select_layers({"fc2"});
        const int steps_before = document->undo_stack()->count();
        scene->cut_selection();
        QVERIFY(!document->layer("fc2"));
        QCOMPARE(document->undo_stack()->count(), steps_before + 1);
        scene->paste();
        QCOMPARE(scene->selected_layers().size(), 1);
        QCOMPARE(document->layer(scene->selected_layers()[0].toStdString())->units, 10);
    }

    void aDragOfANodeInSeveralMovesIsOneUndoStep() {
        view->centerOn(700, 240);
        NodeItem* node = scene->node_item("conv2");
        const QPointF start = body_point(node);
        const int steps_before = document->undo_stack()->count();

        drag(start, start + QPointF(30, 90), 5);

        QCOMPARE(position_of(*document, "conv2").x, 680.0 + 30);
        QCOMPARE(position_of(*document, "conv2").y, 200.0 + 90);
        QCOMPARE(node->pos(), QPointF(710, 290));
        QCOMPARE(document->undo_stack()->count(), steps_before + 1);
        QCOMPARE(scene->selected_layers(), QStringList{"conv2"});

        document->undo_stack()->undo();
        QCOMPARE(position_of(*document, "conv2").x, 680.0);
        QCOMPARE(node->pos(), QPointF(680, 200));

        // A second drag is a step of its own.
        drag(start, start + QPointF(0, 40), 2);
        drag(start + QPointF(0, 40), start + QPointF(0, 80), 2);
        QCOMPARE(document->undo_stack()->count(), steps_before + 2);
        QCOMPARE(position_of(*document, "conv2").y, 280.0);
    }

    void aClickOnANodeSelectsItWithoutAnUndoStep() {
        view->centerOn(700, 240);
        QSignalSpy selection(scene.get(), &NetworkScene::selectionNamesChanged);
        const int steps_before = document->undo_stack()->count();
        QTest::mouseClick(viewport(), Qt::LeftButton, {}, at(body_point(scene->node_item("pool1"))));
        QCOMPARE(scene->selected_layers(), QStringList{"pool1"});
        QCOMPARE(selection.count(), 1);
        QCOMPARE(document->undo_stack()->count(), steps_before);
    }

    void aRubberBandOnTheEmptyCanvasSelectsTheNodesItCovers() {
        view->centerOn(500, 240);
        // From above-left of relu1 to below-right of pool1 (relu1 at 360, pool1 at 520, y 200).
        drag(QPointF(350, 150), QPointF(600, 300), 4);
        QCOMPARE(scene->selected_layers(), (QStringList{"relu1", "pool1"}));
    }

    void theSelectionIsKeptByNameAcrossEdits() {
        scene->select_layers({"fc1"});
        QVERIFY(!document->move_layers({{"conv1", {200, 300}}}));
        QVERIFY(!add(LayerType::dense, 900, 450).isEmpty());
        QCOMPARE(scene->selected_layers(), QStringList{"fc1"});
        document->undo_stack()->undo();
        document->undo_stack()->undo();
        QCOMPARE(scene->selected_layers(), QStringList{"fc1"});
        QCOMPARE(scene->node_count(), 11);
        // A renamed layer (the inspector's edit) stays selected under its new name.
        QSignalSpy selection(scene.get(), &NetworkScene::selectionNamesChanged);
        QVERIFY(!document->rename_layer("fc1", "hidden"));
        QCOMPARE(scene->selected_layers(), QStringList{"hidden"});
        QCOMPARE(selection.count(), 1);
        QVERIFY(scene->node_item("hidden") && !scene->node_item("fc1"));
        QVERIFY(scene->edge_item("flatten", "hidden"));
        scene->select_all();
        QCOMPARE(scene->selected_layers().size(), 11);
    }

    void theEmptyCanvasMenuAddsLayersByGroupAndTidies() {
        QMenu* menu = scene->create_context_menu(QPointF(900, 500));
        QVERIFY(action(menu, "Paste"));
        QVERIFY(action(menu, "Tidy"));
        QVERIFY(action(menu, "Select all"));
        QMenu* add_menu = submenu(menu, "Add layer");
        QVERIFY(add_menu);
        QCOMPARE(static_cast<std::size_t>(add_menu->actions().size()), bps::project::palette_groups().size());
        const auto& entry = bps::project::palette().front();
        QMenu* group = submenu(add_menu, qs(entry.group));
        QVERIFY(group);
        QAction* add_entry = action(group, qs(entry.label));
        QVERIFY(add_entry);
        add_entry->trigger();
        QCOMPARE(scene->node_count(), 12);
        QCOMPARE(document->network().layers.back().type, entry.layer.type);
        QCOMPARE(scene->selected_layers(), QStringList{qs(document->network().layers.back().name)});
        delete menu;

        menu = scene->create_context_menu(QPointF(900, 800));  // below the new node
        QAction* tidy = action(menu, "Tidy");
        QVERIFY(tidy);
        tidy->trigger();
        delete menu;
        bps::model::NetworkSpec tidied = document->network();
        QVERIFY(document->undo_stack()->canUndo());
        for (const auto& layer : tidied.layers)
            QCOMPARE(scene->node_item(qs(layer.name))->pos(), QPointF(layer.position->x, layer.position->y));
    }

    void theNodeAndEdgeMenusActOnWhatIsUnderThem() {
        QMenu* menu = scene->create_context_menu(body_point(scene->node_item("fc1")));
        QCOMPARE(scene->selected_layers(), QStringList{"fc1"});
        QVERIFY(action(menu, "Copy") && action(menu, "Cut") && action(menu, "Delete"));
        action(menu, "Disconnect inputs")->trigger();
        delete menu;
        QVERIFY(!scene->edge_item("flatten", "fc1"));
        QVERIFY(document->layer("fc1")->inputs.empty());

        const EdgeItem* edge = scene->edge_item("relu2", "pool2");
        menu = scene->create_context_menu(edge->path().pointAtPercent(0.5));
        QVERIFY(!action(menu, "Copy"));
        action(menu, "Delete connection")->trigger();
        delete menu;
        QVERIFY(!scene->edge_item("relu2", "pool2"));
        QCOMPARE(scene->node_count(), 11);
    }

    void fitAllChangesTheViewTransformToShowEveryNode() {
        QCOMPARE(view->zoom(), 1.0);
        const QTransform before = view->transform();
        view->fit_all();
        QVERIFY(view->transform() != before);
        QVERIFY(view->zoom() < 1.0);
        const QRect visible = viewport()->rect();
        for (const auto& layer : document->network().layers) {
            const QRect shown =
                view->mapFromScene(scene->node_item(qs(layer.name))->sceneBoundingRect()).boundingRect();
            QVERIFY2(visible.contains(shown), layer.name.c_str());
        }
        view->reset_zoom();
        QCOMPARE(view->zoom(), 1.0);
        view->zoom_in();
        QCOMPARE(view->zoom(), NetworkView::zoom_step);
        view->zoom_out();
        QCOMPARE(view->zoom(), 1.0);
    }

    void fitAllBeforeTheViewIsShownFitsOnceItIs() {
        NetworkView hidden(scene.get());
        hidden.resize(600, 400);
        hidden.fit_all();
        QCOMPARE(hidden.zoom(), 1.0);
        hidden.show();
        QVERIFY(QTest::qWaitForWindowExposed(&hidden));
        QVERIFY(hidden.zoom() < 1.0);
    }

    void anOpenedNetworkShowsWholeWhenReadableElseItsStartReadable() {
        const auto shown = [&](const std::string& name) {
            return viewport()->rect().contains(
                view->mapFromScene(scene->node_item(qs(name))->sceneBoundingRect()).boundingRect());
        };
        // The mlp's five layers fit at a readable size: all of them.
        document->reset(bps::project::example_project("mlp"));
        view->show_network();
        QVERIFY(view->zoom() >= NetworkView::readable_zoom);
        for (const auto& layer : document->network().layers) QVERIFY2(shown(layer.name), layer.name.c_str());
        // The cifar network's fifteen in a row would be too small: its start, readable.
        document->reset(bps::project::example_project("cifar"));
        view->show_network();
        QCOMPARE(view->zoom(), NetworkView::readable_zoom);
        QVERIFY(shown("input"));
        QVERIFY(!shown(document->network().layers.back().name));
    }

    void showLayerScrollsItsNodeIntoView() {
        view->centerOn(0, 0);
        const auto visible = [&] {
            return viewport()->rect().contains(
                view->mapFromScene(scene->node_item("fc2")->sceneBoundingRect()).boundingRect());
        };
        QVERIFY(!visible());
        view->show_layer("fc2");
        QVERIFY(visible());
        QCOMPARE(view->zoom(), 1.0);
    }

    void arrowKeysNudgeTheSelectionOneUndoStepPerPress() {
        view->setFocus();
        scene->select_layers({"conv1", "relu1"});
        const int steps_before = document->undo_stack()->count();
        QTest::keyClick(viewport(), Qt::Key_Right);
        QTest::keyClick(viewport(), Qt::Key_Down);
        QCOMPARE(position_of(*document, "conv1").x, 210.0);
        QCOMPARE(position_of(*document, "conv1").y, 210.0);
        QCOMPARE(position_of(*document, "relu1").x, 370.0);
        QCOMPARE(document->undo_stack()->count(), steps_before + 2);
        QCOMPARE(scene->node_item("relu1")->pos(), QPointF(370, 210));
    }

    void theWheelZoomsAboutTheCursor() {
        view->centerOn(800, 240);
        const QPoint cursor(250, 180);
        const QPointF under_before = view->mapToScene(cursor);
        QWheelEvent wheel(cursor, viewport()->mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(viewport(), &wheel);
        QVERIFY(view->zoom() > 1.2);
        const QPointF under_after = view->mapToScene(cursor);
        QVERIFY2(QLineF(under_before, under_after).length() < 2, "the point under the cursor moved");
    }

    void theMiddleButtonPans() {
        view->centerOn(800, 240);
        const QPointF centre_before = view->mapToScene(viewport()->rect().center());
        QTest::mousePress(viewport(), Qt::MiddleButton, {}, QPoint(400, 300));
        QTest::mouseMove(viewport(), QPoint(350, 280));
        QTest::mouseMove(viewport(), QPoint(300, 260));
        QTest::mouseRelease(viewport(), Qt::MiddleButton, {}, QPoint(300, 260));
        const QPointF centre_after = view->mapToScene(viewport()->rect().center());
        QCOMPARE(centre_after - centre_before, QPointF(100, 40));
        QVERIFY(scene->selected_layers().isEmpty());
    }

    void thePaletteListsEveryEntryByGroupAndDoubleClickAsksToAppend() {
        PaletteDock dock;
        QCOMPARE(dock.objectName(), QString("paletteDock"));
        QCOMPARE(dock.windowTitle(), QString("Layers"));
        QTreeWidget* tree = dock.tree();
        const auto groups = bps::project::palette_groups();
        QCOMPARE(static_cast<std::size_t>(tree->topLevelItemCount()), groups.size());
        std::size_t entry_index = 0;
        const auto& entries = bps::project::palette();
        for (int g = 0; g < tree->topLevelItemCount(); ++g) {
            QTreeWidgetItem* group = tree->topLevelItem(g);
            QCOMPARE(group->text(0), qs(groups[static_cast<std::size_t>(g)]));
            for (int i = 0; i < group->childCount(); ++i, ++entry_index) {
                QVERIFY(entry_index < entries.size());
                QCOMPARE(group->child(i)->text(0), qs(entries[entry_index].label));
                QCOMPARE(group->child(i)->toolTip(0), qs(entries[entry_index].description));
                QCOMPARE(qs(entries[entry_index].group), group->text(0));
            }
        }
        QCOMPARE(entry_index, entries.size());

        // A drag carries the label in the canvas's mime type.
        QTreeWidgetItem* leaf = tree->topLevelItem(1)->child(0);
        const QModelIndex index = tree->model()->index(0, 0, tree->model()->index(1, 0));
        std::unique_ptr<QMimeData> mime(tree->model()->mimeData({index}));
        QVERIFY(mime);
        QCOMPARE(QString::fromUtf8(mime->data(NetworkScene::layer_mime_type)), leaf->text(0));

        dock.resize(300, 600);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QSignalSpy append(&dock, &PaletteDock::appendRequested);
        const QRect rect = tree->visualItemRect(leaf);
        // A double click as the platform delivers it: press, release, double-click, release.
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(append.count(), 0);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseRelease(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(append.count(), 1);
        QCOMPARE(append.at(0).at(0).toString(), leaf->text(0));

        // Enter on the current entry asks too; a group heading asks nothing.
        tree->setCurrentItem(tree->topLevelItem(0)->child(0));
        QTest::keyClick(tree, Qt::Key_Return);
        QCOMPARE(append.count(), 2);
        QCOMPARE(append.at(1).at(0).toString(), tree->topLevelItem(0)->child(0)->text(0));
        tree->setCurrentItem(tree->topLevelItem(0));
        QTest::keyClick(tree, Qt::Key_Return);
        QCOMPARE(append.count(), 2);
    }

    void thePaletteFilterKeepsMatchingEntries() {
        PaletteDock dock;
        const std::string label = bps::test::palette_label(LayerType::conv2d);
        dock.filter()->setText(qs(label));
        int shown = 0;
        for (int g = 0; g < dock.tree()->topLevelItemCount(); ++g) {
            QTreeWidgetItem* group = dock.tree()->topLevelItem(g);
            for (int i = 0; i < group->childCount(); ++i)
                if (!group->child(i)->isHidden() && !group->isHidden()) {
                    ++shown;
                    QVERIFY(group->child(i)->text(0).contains(qs(label), Qt::CaseInsensitive) ||
                            group->text(0).contains(qs(label), Qt::CaseInsensitive));
                }
        }
        QVERIFY(shown >= 1);
        dock.filter()->clear();
        for (int g = 0; g < dock.tree()->topLevelItemCount(); ++g) QVERIFY(!dock.tree()->topLevelItem(g)->isHidden());
    }
};

BACKPROP_QT_TEST(EditorCanvasTest)
#include "test_editor_canvas.moc"
