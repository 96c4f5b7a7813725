// The editor as a learner drives it, in the real window: the palette, the canvas's selection,
// the inspector's widgets and the window's Edit actions.
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "datasets/catalogue.h"
#include "engine/project/project.h"
#include "tests/ui/graph_json.h"
#include "tests/ui/qt_test_class.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/palette_dock.h"
#include "ui/main_window/main_window.h"

using bps::ui::MainWindow;

class EditorWindowTest : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> folder_;
    std::unique_ptr<MainWindow> window_;

    QTreeWidgetItem* palette_item(const QString& label) {
        QTreeWidget* tree = window_->palette_dock()->tree();
        const QList<QTreeWidgetItem*> found = tree->findItems(label, Qt::MatchExactly | Qt::MatchRecursive);
        for (QTreeWidgetItem* item : found)
            if (item->parent()) return item;  // an entry, not a group heading
        return nullptr;
    }

    // A double-click on the palette entry, as the learner does it.
    void double_click(const QString& label) {
        QTreeWidget* tree = window_->palette_dock()->tree();
        QTreeWidgetItem* item = palette_item(label);
        QVERIFY2(item, qPrintable("no palette entry " + label));
        tree->scrollToItem(item);
        const QPoint at = tree->visualItemRect(item).center();
        // As the platform delivers it: press, release, double-click, release.
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseRelease(tree->viewport(), Qt::LeftButton, {}, at);
    }

    void select(const QString& name) {
        window_->scene()->select_layers({name});
        QCOMPARE(window_->inspector_dock()->shown_layer(), name);
    }

private slots:
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
        bps::ui::StartupFacts facts;
        facts.dataset_catalogue = bps::datasets::catalogue();
        facts.data_root = folder_->filePath("data").toStdString();
        facts.recovery_folder = folder_->filePath("recovery").toStdString();
        window_ = std::make_unique<MainWindow>(std::move(facts));
        window_->prompts().error = [](const QString& message) { QFAIL(qPrintable("unexpected error: " + message)); };
        window_->resize(1400, 900);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanup() {
        if (window_) window_->document()->undo_stack()->setClean();  // no question at the end
        window_.reset();
        folder_.reset();
    }

    void buildingTheCnnWithThePaletteAndInspectorGivesTheReferenceGraph() {
        bps::project::Project empty;
        empty.network.explicit_inputs = true;
        window_->document()->reset(empty);
        QVERIFY(window_->document()->network().layers.empty());

        // Each double-click appends after the selected layer, connects it and selects the new one.
        for (const char* label : {"Input", "Conv2D", "ReLU", "MaxPool2D", "Conv2D", "ReLU", "MaxPool2D", "Flatten",
                                  "Dense", "ReLU", "Dense"})
            double_click(label);
        QCOMPARE(int(window_->document()->network().layers.size()), 11);
        QCOMPARE(window_->scene()->selected_layers(), QStringList{"fc2"});

        bps::ui::InspectorDock* inspector = window_->inspector_dock();
        select("flatten1");
        inspector->name_edit()->selectAll();
        QTest::keyClicks(inspector->name_edit(), "flatten");
        QTest::keyClick(inspector->name_edit(), Qt::Key_Return);
        QVERIFY(window_->document()->layer("flatten"));
        select("conv2");
        inspector->units_box()->setValue(64);
        select("fc2");
        inspector->units_box()->setValue(10);
        auto* initializer = inspector->findChild<QComboBox*>("initializer");
        QVERIFY(initializer);
        initializer->setCurrentIndex(initializer->findText("glorot_uniform"));
        QVERIFY(window_->document()->report().ok());

        // The graph equals the shipped cnn's: layers, parameters, edges and loss.
        const bps::project::Project reference = bps::project::example_project("cnn");
        QCOMPARE(window_->document()->project().network.layers.size(), reference.network.layers.size());
        QCOMPARE(bps::test::graph_json(window_->document()->project(), reference),
                 bps::project::project_to_json(reference));

        // Every step of it undoes through Edit > Undo, back to the empty project.
        int steps = 0;
        while (window_->undo_action()->isEnabled() && steps < 100) {
            window_->undo_action()->trigger();
            ++steps;
        }
        QCOMPARE(steps, 11 + 4);
        QVERIFY(window_->document()->network().layers.empty());
    }

    void anIllegalConnectionShowsItsReasonInTheStatusBar() {
        window_->document()->reset(bps::project::example_project("mlp"));
        const std::string last = window_->document()->network().layers.back().name;
        QVERIFY(window_->document()->connect(last, "input"));
        QCOMPARE(window_->statusBar()->currentMessage(),
                 QString("'input' is an Input layer and reads from no layer; the dataset feeds it"));
    }

    void deleteCopyAndPasteGoThroughTheEditMenu() {
        window_->document()->reset(bps::project::example_project("cnn"));
        const std::string original = bps::project::project_to_json(window_->document()->project());
        window_->scene()->select_layers({"conv2", "relu2"});
        window_->copy_action()->trigger();
        window_->paste_action()->trigger();
        QVERIFY(window_->document()->layer("conv3"));
        QVERIFY(window_->document()->layer("relu4"));
        QCOMPARE(window_->document()->layer("relu4")->inputs, std::vector<std::string>{"conv3"});
        QCOMPARE(window_->scene()->selected_layers(), (QStringList{"conv3", "relu4"}));
        window_->delete_action()->trigger();
        QVERIFY(!window_->document()->layer("conv3"));
        window_->select_all_action()->trigger();
        QCOMPARE(window_->scene()->selected_layers().size(), 11);
        window_->undo_action()->trigger();  // the delete
        window_->undo_action()->trigger();  // the paste
        QCOMPARE(bps::project::project_to_json(window_->document()->project()), original);
        window_->redo_action()->trigger();
        QVERIFY(window_->document()->layer("conv3"));
        QCOMPARE(window_->redo_action()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
        QCOMPARE(window_->undo_action()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
    }
};

BACKPROP_QT_TEST(EditorWindowTest)
#include "test_editor_window.moc"
