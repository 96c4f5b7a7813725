// The studio on a laptop screen: the window fits 1280x720 on every tab, no dock scrolls sideways
// or clips its content, and the palette's double-click grows a network in a chain without
// overlapping nodes, as one undo step.
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

#include "datasets/catalogue.h"
#include "engine/project/network_edits.h"
#include "engine/project/project.h"
#include "tests/ui/qt_test_class.h"
#include "ui/dashboard/train_panel.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/node_item.h"
#include "ui/editor/palette_dock.h"
#include "ui/main_window/main_window.h"

using bps::ui::MainWindow;

namespace {

// A laptop's 1280x720 screen less a title bar.
constexpr int laptop_width = 1280;
constexpr int laptop_height = 720 - 30;

const char* const dock_names[] = {MainWindow::palette_dock_name, MainWindow::inspector_dock_name,
                                  MainWindow::problems_dock_name, MainWindow::summary_dock_name,
                                  MainWindow::train_dock_name};

}  // namespace

class LaptopFitTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> folder_;
    std::unique_ptr<MainWindow> window_;

    QTreeWidgetItem* palette_item(const QString& label) {
        const QList<QTreeWidgetItem*> found =
            window_->palette_dock()->tree()->findItems(label, Qt::MatchExactly | Qt::MatchRecursive);
        for (QTreeWidgetItem* item : found)
            if (item->parent()) return item;  // an entry, not a group heading
        return nullptr;
    }

    void double_click(const QString& label) {
        QTreeWidget* tree = window_->palette_dock()->tree();
        QTreeWidgetItem* item = palette_item(label);
        QVERIFY2(item, qPrintable("no palette entry " + label));
        tree->scrollToItem(item);
        const QPoint at = tree->visualItemRect(item).center();
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseRelease(tree->viewport(), Qt::LeftButton, {}, at);
    }

    QStringList inputs(const std::string& name) {
        const bps::model::LayerSpec* layer = window_->document()->layer(name);
        if (!layer) return {"(no layer " + QString::fromStdString(name) + ")"};
        QStringList names;
        for (const std::string& input : layer->inputs) names << QString::fromStdString(input);
        return names;
    }

    // No two nodes of the canvas overlap, as drawn.
    void check_no_overlap() {
        QList<QRectF> nodes;
        for (QGraphicsItem* item : window_->scene()->items())
            if (item->type() == bps::ui::NodeItem::Type) nodes << item->sceneBoundingRect();
        QCOMPARE(nodes.size(), static_cast<qsizetype>(window_->document()->network().layers.size()));
        for (qsizetype i = 0; i < nodes.size(); ++i)
            for (qsizetype j = i + 1; j < nodes.size(); ++j) QVERIFY(!nodes[i].intersects(nodes[j]));
    }

    void show_at(int width, int height) {
        window_->resize(width, height);
        window_->reset_layout_action()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window_->size(), QSize(width, height), 5000);
        QCoreApplication::processEvents();
    }

    // Every visible dock shows all of its width: no horizontal scroll bar, nothing scrolled
    // sideways, and every scroll area's content no wider than its viewport.
    void check_docks_fit(const QString& when) {
        for (const char* name : dock_names) {
            auto* dock = window_->findChild<QDockWidget*>(name);
            QVERIFY2(dock, name);
            if (!dock->isVisible()) continue;
            QVERIFY2(dock->geometry().right() < window_->width(), qPrintable(when + ": " + name + " past the edge"));
            // Lists and tables too (the palette, the problems, the summary).
            for (QAbstractScrollArea* view : dock->findChildren<QAbstractScrollArea*>())
                if (view->isVisible())
                    QVERIFY2(!view->horizontalScrollBar()->isVisible(),
                             qPrintable(when + ": " + name + "/" + view->objectName() + " scrolls sideways"));
            for (QScrollArea* scroll : dock->findChildren<QScrollArea*>()) {
                const QString what = when + ": " + name + "/" + scroll->objectName();
                QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), qPrintable(what + " scrolls sideways"));
                QVERIFY2(scroll->horizontalScrollBar()->value() == 0, qPrintable(what + " is scrolled sideways"));
                if (QWidget* content = scroll->widget())
                    QVERIFY2(content->minimumSizeHint().width() <= scroll->viewport()->width(),
                             qPrintable(QString("%1: content needs %2 px, viewport %3")
                                            .arg(what)
                                            .arg(content->minimumSizeHint().width())
                                            .arg(scroll->viewport()->width())));
            }
        }
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
        window_->resize(laptop_width, laptop_height);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        window_->reset_layout_action()->trigger();
    }

    void cleanup() {
        if (window_) window_->document()->undo_stack()->setClean();  // no question at the end
        window_.reset();
        folder_.reset();
    }

    // The learner's first network: three double-clicks on a blank project.
    void doubleClicksOnABlankProjectBuildAChainBeforeTheOutput() {
        bps::ui::NetworkDocument* document = window_->document();
        document->reset(MainWindow::blank_project());
        window_->panels()->setCurrentIndex(0);
        QVERIFY(window_->scene()->selected_layers().isEmpty());
        const std::string before = bps::project::project_to_json(document->project());

        double_click("Flatten");  // nothing selected: on the edge into the output
        QCOMPARE(window_->scene()->selected_layers(), QStringList{"flatten1"});
        QCOMPARE(window_->inspector_dock()->shown_layer(), QString("flatten1"));
        QCOMPARE(inputs("flatten1"), QStringList{"input"});
        QCOMPARE(inputs("output"), QStringList{"flatten1"});
        check_no_overlap();
        // One undo step takes the layer, its edges and the moved output back.
        QCOMPARE(document->undo_stack()->count(), 1);
        document->undo_stack()->undo();
        QCOMPARE(bps::project::project_to_json(document->project()), before);
        document->undo_stack()->redo();

        double_click("Dense");  // flatten1 is selected: after it, on its outgoing edge
        double_click("Dense");
        QCOMPARE(inputs("fc1"), QStringList{"flatten1"});
        QCOMPARE(inputs("fc2"), QStringList{"fc1"});
        QCOMPARE(inputs("output"), QStringList{"fc2"});
        QCOMPARE(window_->scene()->selected_layers(), QStringList{"fc2"});
        QCOMPARE(document->undo_stack()->count(), 3);
        QVERIFY2(document->report().problems.empty(), "the chain has problems");
        check_no_overlap();
    }

    void aSelectedLayerGetsTheNewOneOnItsOutgoingEdgeAndTheOutputKeepsItsPlace() {
        bps::ui::NetworkDocument* document = window_->document();
        document->reset(MainWindow::blank_project());
        double_click("Flatten");
        double_click("Dense");
        // A Dropout after flatten1: between flatten1 and fc1, fc1 and the output moved right.
        window_->scene()->select_layers({"flatten1"});
        const std::string before = bps::project::project_to_json(document->project());
        double_click("Dropout");
        QCOMPARE(inputs("dropout1"), QStringList{"flatten1"});
        QCOMPARE(inputs("fc1"), QStringList{"dropout1"});
        QCOMPARE(inputs("output"), QStringList{"fc1"});
        check_no_overlap();
        document->undo_stack()->undo();
        QCOMPARE(bps::project::project_to_json(document->project()), before);
        document->undo_stack()->redo();

        // The output selected: the new layer goes before it.
        window_->scene()->select_layers({"output"});
        double_click("ReLU");
        QCOMPARE(window_->scene()->selected_layers(), QStringList{"relu1"});
        QCOMPARE(inputs("relu1"), QStringList{"fc1"});
        QCOMPARE(inputs("output"), QStringList{"relu1"});
        QVERIFY(document->report().problems.empty());
        check_no_overlap();
    }

    void theWindowFitsALaptopScreenOnEveryTab() {
        QTabWidget* tabs = window_->panels();
        for (int tab = 0; tab < tabs->count(); ++tab) {
            tabs->setCurrentIndex(tab);
            QCoreApplication::processEvents();
            window_->layout()->activate();  // the minimum of this tab, not the last one's
            const QSize needed = window_->minimumSizeHint().expandedTo(window_->minimumSize());
            QVERIFY2(needed.width() <= laptop_width && needed.height() <= laptop_height,
                     qPrintable(QString("the %1 tab needs %2x%3")
                                    .arg(tabs->tabText(tab))
                                    .arg(needed.width())
                                    .arg(needed.height())));
        }
    }

    void everyDockShowsItsWholeWidthAtLaptopSize() {
        for (const QSize size : {QSize(laptop_width, laptop_height), QSize(1366, 768 - 30), QSize(1920, 1050)}) {
            show_at(size.width(), size.height());
            const QString at = QString("%1x%2").arg(size.width()).arg(size.height());
            window_->panels()->setCurrentIndex(0);
            QCoreApplication::processEvents();
            check_docks_fit(at + " network");
            // With a layer with a problem in the inspector (its longest page).
            window_->document()->reset(MainWindow::blank_project());
            window_->scene()->select_layers({"output"});
            QCoreApplication::processEvents();
            check_docks_fit(at + " inspector");
            // The Train dock's fields, each focused in turn: nothing scrolls sideways.
            window_->panels()->setCurrentIndex(1);
            QCoreApplication::processEvents();
            auto* scroll = window_->findChild<QScrollArea*>("trainDockScroll");
            QVERIFY(scroll);
            for (QWidget* field : scroll->widget()->findChildren<QWidget*>()) {
                if (!field->isVisible() || !(field->focusPolicy() & Qt::TabFocus)) continue;
                field->setFocus(Qt::TabFocusReason);
                QCoreApplication::processEvents();
                QCOMPARE(scroll->horizontalScrollBar()->value(), 0);
                const QRect shown(field->mapTo(scroll->viewport(), QPoint(0, 0)), field->size());
                QVERIFY2(shown.left() >= 0 && shown.right() < scroll->viewport()->width(),
                         qPrintable(at + ": " + field->objectName() + " is cut off"));
            }
            check_docks_fit(at + " train");
        }
    }

    void thePaletteShowsItsLabelsWhole() {
        window_->panels()->setCurrentIndex(0);
        QCoreApplication::processEvents();
        QTreeWidget* tree = window_->palette_dock()->tree();
        QVERIFY(!tree->horizontalScrollBar()->isVisible());
        for (const bps::project::PaletteEntry& entry : bps::project::palette()) {
            QTreeWidgetItem* item = palette_item(QString::fromStdString(entry.label));
            QVERIFY(item);
            const QRect cell = tree->visualItemRect(item);
            const int text = tree->fontMetrics().horizontalAdvance(item->text(0));
            QVERIFY2(cell.left() + text <= tree->viewport()->width(),
                     qPrintable(item->text(0) + QString(" needs %1 px from %2, the list is %3 wide")
                                                    .arg(text)
                                                    .arg(cell.left())
                                                    .arg(tree->viewport()->width())));
        }
    }

    void theInspectorsProblemTextDoesNotOverlapOtherRows() {
        window_->panels()->setCurrentIndex(0);
        bps::ui::NetworkDocument* document = window_->document();
        document->reset(MainWindow::blank_project());
        window_->scene()->select_layers({"output"});  // a Dense reading a 3-D image: a problem
        QCoreApplication::processEvents();
        auto* problems = window_->inspector_dock()->findChild<QLabel*>("layerProblems");
        QVERIFY(problems);
        QTRY_VERIFY_WITH_TIMEOUT(problems->isVisible(), 5000);
        QVERIFY(!problems->text().isEmpty());
        // At the narrowest the dock goes, where the text wraps the most.
        window_->resizeDocks({window_->inspector_dock()}, {1}, Qt::Horizontal);
        QCoreApplication::processEvents();
        window_->layout()->activate();
        QCoreApplication::processEvents();
        QWidget* area = problems->parentWidget();
        // The label is as tall as its wrapped text needs, and touches no other row.
        QVERIFY2(problems->height() >= problems->heightForWidth(problems->width()),
                 qPrintable(QString("%1 px tall for %2 px of text")
                                .arg(problems->height())
                                .arg(problems->heightForWidth(problems->width()))));
        for (QWidget* other : area->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
            if (other == problems || !other->isVisible()) continue;
            QVERIFY2(!other->geometry().intersects(problems->geometry()),
                     qPrintable(other->objectName() + " overlaps the problem text"));
        }
    }
};

BACKPROP_QT_TEST(LaptopFitTest)
#include "test_laptop_fit.moc"
