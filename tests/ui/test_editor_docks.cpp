// The editor's docks under the offscreen platform, driven through a NetworkDocument: the Problems
// dock lists the report's problems and selects their layers, the Summary dock is the report's
// numbers row by row with their totals, and the Inspector's widgets edit the document in undo
// steps of the right size and follow its undo.
#include <QAbstractItemModel>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <string>
#include <vector>

#include "engine/base/number_text.h"
#include "engine/model/graph_analysis.h"
#include "engine/project/network_edits.h"
#include "engine/project/project.h"
#include "tests/ui/palette_label.h"
#include "tests/ui/qt_test_class.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/problems_dock.h"
#include "ui/editor/summary_dock.h"

using bps::ui::InspectorDock;
using bps::ui::NetworkDocument;
using bps::ui::ProblemsDock;
using bps::ui::SummaryDock;
using bps::ui::SummaryModel;
namespace model = bps::model;
namespace project = bps::project;

namespace {

void open_example(NetworkDocument& document, const char* name) {
    document.reset(project::example_project(name));
}

// The cnn example with three problems, each made by an edit a learner could make: a Dense layer
// fed by pool2's 4-D output without a Flatten (its own problem, and it leads nowhere), and a
// 128-unit Dense appended after fc2, which becomes the output with 128 scores for 10 classes.
void make_three_problems(NetworkDocument& document, std::string& probe, std::string& head) {
    open_example(document, "cnn");
    const std::string dense = bps::test::palette_label(model::LayerType::dense);
    QVERIFY(!dense.empty());
    QVERIFY(!document.add_layer(dense, {1000, 400}, &probe));
    QVERIFY(!document.connect("pool2", probe));
    const model::CanvasPosition fc2 = *document.layer("fc2")->position;
    QVERIFY(!document.add_layer(dense, {fc2.x + 180, fc2.y}, &head));
    QVERIFY(!document.connect("fc2", head));
}

QString value_text(const QAbstractItemModel& model, int row, int column) {
    return model.index(row, column).data(SummaryModel::value_role).toString();
}

}  // namespace

class EditorDocksTest : public QObject {
    Q_OBJECT
private slots:
    void theProblemsDockShowsOneRowPerProblemOfTheReportWithItsLayer() {
        NetworkDocument document;
        std::string probe, head;
        make_three_problems(document, probe, head);
        if (QTest::currentTestFailed()) return;
        const model::GraphReport& report = document.report();
        QCOMPARE(report.problems.size(), std::size_t{3});

        ProblemsDock dock(&document);
        QCOMPARE(dock.objectName(), QString("problemsDock"));
        QCOMPARE(dock.problem_count(), 3);
        QCOMPARE(dock.windowTitle(), QString("Problems (3)"));
        QTreeWidget* view = dock.view();
        QCOMPARE(view->topLevelItemCount(), 3);
        for (int row = 0; row < 3; ++row) {
            const model::GraphProblem& problem = report.problems[static_cast<std::size_t>(row)];
            QVERIFY(problem.node.has_value());
            const std::string& layer = document.network().layers[static_cast<std::size_t>(*problem.node)].name;
            QCOMPARE(view->topLevelItem(row)->text(0), QString::fromStdString(layer));
            QCOMPARE(view->topLevelItem(row)->text(1), QString::fromStdString(problem.message));
        }
        // The problems are on the layers the edits made them on.
        QStringList layers;
        for (int row = 0; row < 3; ++row) layers << view->topLevelItem(row)->text(0);
        const QString probe_name = QString::fromStdString(probe), head_name = QString::fromStdString(head);
        QCOMPARE(layers, QStringList({probe_name, probe_name, head_name}));
    }

    void theProblemsDockFollowsUndoAndSaysNoProblemsForAGoodNetwork() {
        NetworkDocument document;
        std::string probe, head;
        make_three_problems(document, probe, head);
        if (QTest::currentTestFailed()) return;
        ProblemsDock dock(&document);
        QCOMPARE(dock.problem_count(), 3);
        while (document.undo_stack()->canUndo()) document.undo_stack()->undo();
        QVERIFY(document.report().ok());
        QCOMPARE(dock.problem_count(), 0);
        QCOMPARE(dock.windowTitle(), QString("Problems"));
        QCOMPARE(dock.view()->topLevelItemCount(), 1);
        QCOMPARE(dock.view()->topLevelItem(0)->text(0), QString("No problems"));
        QVERIFY(!(dock.view()->topLevelItem(0)->flags() & Qt::ItemIsSelectable));
    }

    void aProblemOfTheWholeNetworkIsOnTheNetworkRow() {
        NetworkDocument document;
        open_example(document, "cnn");
        QVERIFY(!document.remove_layers({"input"}));
        ProblemsDock dock(&document);
        const model::GraphReport& report = document.report();
        QCOMPARE(dock.problem_count(), static_cast<int>(report.problems.size()));
        int network_rows = 0;
        for (int row = 0; row < dock.view()->topLevelItemCount(); ++row) {
            const model::GraphProblem& problem = report.problems[static_cast<std::size_t>(row)];
            if (problem.node) continue;
            ++network_rows;
            QCOMPARE(dock.view()->topLevelItem(row)->text(0), QString("network"));
            QCOMPARE(dock.view()->topLevelItem(row)->text(1), QString::fromStdString(problem.message));
        }
        QCOMPARE(network_rows, static_cast<int>(report.network_problems.size()));
        QVERIFY(network_rows >= 1);  // "the network has no Input layer"
    }

    void clickingAProblemRowEmitsItsLayer() {
        NetworkDocument document;
        std::string probe, head;
        make_three_problems(document, probe, head);
        if (QTest::currentTestFailed()) return;
        ProblemsDock dock(&document);
        dock.resize(700, 300);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QSignalSpy activated(&dock, &ProblemsDock::layerActivated);
        QTreeWidget* view = dock.view();
        for (int row = 0; row < view->topLevelItemCount(); ++row) {
            QTreeWidgetItem* item = view->topLevelItem(row);
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualItemRect(item).center());
            QCOMPARE(activated.count(), row + 1);
            QCOMPARE(activated.last().at(0).toString(), item->text(0));
        }
    }

    void theSummaryOfTheCnnExampleIsTheReportRowByRow() {
        NetworkDocument document;
        open_example(document, "cnn");
        const model::GraphReport& report = document.report();
        QVERIFY(report.ok());
        SummaryDock dock(&document);
        QCOMPARE(dock.objectName(), QString("summaryDock"));
        QCOMPARE(dock.windowTitle(), QString("Summary"));
        const SummaryModel& summary = *dock.model();
        QCOMPARE(dock.view()->model(), dock.model());
        QCOMPARE(summary.layer_row_count(), static_cast<int>(report.execution_order.size()));
        QCOMPARE(summary.rowCount(), summary.layer_row_count() + SummaryModel::total_row_count);
        for (int row = 0; row < summary.layer_row_count(); ++row) {
            const auto index = static_cast<std::size_t>(report.execution_order[static_cast<std::size_t>(row)]);
            const model::NodeReport& node = report.nodes[index];
            const model::LayerSpec& layer = document.network().layers[index];
            QCOMPARE(value_text(summary, row, SummaryModel::layer_column), QString::fromStdString(layer.name));
            QCOMPARE(value_text(summary, row, SummaryModel::type_column),
                     QString::fromUtf8(model::layer_type_name(layer.type)));
            QCOMPARE(value_text(summary, row, SummaryModel::shape_column),
                     QString::fromStdString(node.output->sample_text()));
            QCOMPARE(summary.index(row, SummaryModel::parameters_column).data(SummaryModel::value_role).toULongLong(),
                     static_cast<qulonglong>(node.parameters));
            QCOMPARE(summary.index(row, SummaryModel::flops_column).data(SummaryModel::value_role).toDouble(),
                     node.flops);
            QCOMPARE(summary.index(row, SummaryModel::memory_column).data(SummaryModel::value_role).toULongLong(),
                     static_cast<qulonglong>(node.activation_bytes));
            QCOMPARE(summary.index(row, SummaryModel::parameters_column).data().toString(),
                     QString::fromStdString(bps::session::format_thousands(node.parameters)));
        }
        // conv1 is 32 3x3 filters on one channel: 32 * 9 + 32 parameters, shown as the CLI shows them.
        QCOMPARE(summary.index(1, SummaryModel::layer_column).data().toString(), QString("conv1"));
        QCOMPARE(summary.index(1, SummaryModel::parameters_column).data().toString(), QString("320"));
        QCOMPARE(summary.index(1, SummaryModel::shape_column).data().toString(), QString("(32, 26, 26)"));
    }

    void theSummaryTotalsAreTheReportsSumsPerImageAndPerBatch() {
        NetworkDocument document;
        open_example(document, "cnn");
        const model::GraphReport& report = document.report();
        std::size_t parameters = 0, trainable = 0, bytes = 0;
        double flops = 0;
        for (const model::NodeReport& node : report.nodes) {
            parameters += node.parameters;
            trainable += node.trainable_parameters;
            bytes += node.activation_bytes;
            flops += node.flops;
        }
        // The same totals through the analysis `backprop summary` prints, and by hand: conv1 320,
        // conv2 18,496, fc1 204,928, fc2 1,290.
        const model::GraphAnalysis analysis =
            project::analyse_project(document.project(), document.input_shape(), document.classes().value());
        QCOMPARE(parameters, analysis.parameters());
        QCOMPARE(parameters, std::size_t{225034});
        QCOMPARE(bytes, analysis.activation_bytes());

        SummaryDock dock(&document);
        const SummaryModel& summary = *dock.model();
        const int batch = document.project().training.batch_size;
        QCOMPARE(batch, 64);
        auto number = [&](SummaryModel::TotalRow which, int column) {
            return summary.index(summary.total_row(which), column).data(SummaryModel::value_role);
        };
        QCOMPARE(number(SummaryModel::total_per_image, SummaryModel::parameters_column).toULongLong(),
                 qulonglong{225034});
        QCOMPARE(summary.index(summary.total_row(SummaryModel::total_per_image), SummaryModel::parameters_column)
                     .data()
                     .toString(),
                 QString("225,034"));
        QCOMPARE(number(SummaryModel::trainable, SummaryModel::parameters_column).toULongLong(),
                 static_cast<qulonglong>(trainable));
        QCOMPARE(number(SummaryModel::non_trainable, SummaryModel::parameters_column).toULongLong(),
                 static_cast<qulonglong>(parameters - trainable));
        QCOMPARE(number(SummaryModel::total_per_image, SummaryModel::flops_column).toDouble(), flops);
        QCOMPARE(number(SummaryModel::total_per_batch, SummaryModel::flops_column).toDouble(), flops * batch);
        QCOMPARE(number(SummaryModel::total_per_image, SummaryModel::memory_column).toULongLong(),
                 static_cast<qulonglong>(bytes));
        QCOMPARE(number(SummaryModel::total_per_batch, SummaryModel::memory_column).toULongLong(),
                 static_cast<qulonglong>(bytes) * 64);
        QCOMPARE(summary.index(summary.total_row(SummaryModel::total_per_batch), SummaryModel::layer_column)
                     .data()
                     .toString(),
                 QString("Total per batch of 64"));
    }

    void theSummaryListsLayersWithoutAShapeAfterThoseThatRun() {
        NetworkDocument document;
        std::string probe, head;
        make_three_problems(document, probe, head);
        if (QTest::currentTestFailed()) return;
        const model::GraphReport& report = document.report();
        SummaryDock dock(&document);
        const SummaryModel& summary = *dock.model();
        QCOMPARE(summary.layer_row_count(), static_cast<int>(report.nodes.size()));
        const int index = document.index_of(probe);
        const model::NodeReport& node = report.nodes[static_cast<std::size_t>(index)];
        QVERIFY(!node.output);
        bool found = false;
        for (int row = 0; row < summary.layer_row_count(); ++row)
            if (summary.layer_name(row) == QString::fromStdString(probe)) {
                found = true;
                QCOMPARE(value_text(summary, row, SummaryModel::shape_column),
                         QString::fromStdString(node.shape_text()));
            }
        QVERIFY(found);
    }

    void editingDenseUnitsChangesTheDocumentAndUndoShowsTheOldValue() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        QCOMPARE(dock.objectName(), QString("inspectorDock"));
        dock.show_layer("fc1");
        QCOMPARE(dock.units_box()->value(), 128);
        const int steps = document.undo_stack()->count();
        dock.units_box()->setValue(256);
        QCOMPARE(document.layer("fc1")->units, 256);
        QCOMPARE(document.undo_stack()->count(), steps + 1);
        document.undo_stack()->undo();
        QCOMPARE(document.layer("fc1")->units, 128);
        QCOMPARE(dock.units_box()->value(), 128);
        // Showing the restored value sent no edit back.
        QCOMPARE(document.undo_stack()->index(), steps);
        QCOMPARE(document.undo_stack()->count(), steps + 1);
    }

    void aRunOfSpinBoxStepsIsOneUndoStep() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show_layer("conv1");
        auto* kernel = dock.findChild<QSpinBox*>("kernelHeight");
        QVERIFY(kernel);
        QCOMPARE(kernel->value(), 3);
        const int steps = document.undo_stack()->count();
        kernel->stepBy(1);
        dock.show_layer("conv1");  // the canvas selecting the same layer again keeps the run going
        kernel->stepBy(1);
        QCOMPARE(document.layer("conv1")->conv.kernel_h, 5);
        QCOMPARE(document.node_report("conv1")->output->sample_text(), std::string("(32, 24, 26)"));
        QCOMPARE(document.undo_stack()->count(), steps + 1);
        document.undo_stack()->undo();
        QCOMPARE(document.layer("conv1")->conv.kernel_h, 3);
        QCOMPARE(kernel->value(), 3);
        // After an undo the next step starts a new undo step.
        kernel->stepBy(1);
        QCOMPARE(document.undo_stack()->count(), steps + 1);
        QCOMPARE(document.undo_stack()->index(), steps + 1);
        QCOMPARE(document.layer("conv1")->conv.kernel_h, 4);
    }

    void renamingToATakenNameIsRefusedWithItsMessage() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show();
        dock.show_layer("fc1");
        model::NetworkSpec copy = document.network();
        const std::optional<std::string> expected = project::rename_layer(copy, "fc1", "fc2");
        QVERIFY(expected.has_value());
        const int steps = document.undo_stack()->count();

        dock.name_edit()->setText("fc2");
        QTest::keyClick(dock.name_edit(), Qt::Key_Return);
        QCOMPARE(dock.name_error()->text(), QString::fromStdString(*expected));
        QVERIFY(dock.name_error()->isVisible());
        QCOMPARE(dock.name_edit()->text(), QString("fc1"));
        QCOMPARE(dock.shown_layer(), QString("fc1"));
        QVERIFY(document.layer("fc1"));
        QCOMPARE(document.layer("fc2")->units, 10);
        QCOMPARE(document.undo_stack()->count(), steps);
    }

    void renamingToAFreeNameRenamesTheLayerAndKeepsItShown() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show_layer("fc1");
        dock.name_edit()->setText("hidden");
        QTest::keyClick(dock.name_edit(), Qt::Key_Return);
        QVERIFY(document.layer("hidden"));
        QVERIFY(!document.layer("fc1"));
        QCOMPARE(dock.shown_layer(), QString("hidden"));
        QCOMPARE(dock.name_edit()->text(), QString("hidden"));
        QVERIFY(dock.name_error()->text().isEmpty());
        QCOMPARE(dock.units_box()->value(), 128);
    }

    void choosingLeakyReluShowsItsSlopeAndEditsBoth() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show();
        dock.show_layer("relu1");
        auto* kind = dock.findChild<QComboBox*>("activationKind");
        auto* slope = dock.findChild<QDoubleSpinBox*>("leakySlope");
        QVERIFY(kind && slope);
        QVERIFY(kind->isVisible());
        QVERIFY(!slope->isVisible());
        kind->setCurrentIndex(kind->findData(static_cast<int>(model::Activation::leaky_relu)));
        QCOMPARE(document.layer("relu1")->activation, model::Activation::leaky_relu);
        QVERIFY(slope->isVisible());
        slope->setValue(0.2);
        QCOMPARE(document.layer("relu1")->slope, 0.2f);
        document.undo_stack()->undo();
        document.undo_stack()->undo();
        QCOMPARE(document.layer("relu1")->activation, model::Activation::relu);
        QCOMPARE(kind->currentText(), QString("ReLU"));
        QVERIFY(!slope->isVisible());
    }

    void aDropoutSliderDragIsOneUndoStep() {
        NetworkDocument document;
        open_example(document, "cnn");
        std::string dropout;
        QVERIFY(!document.append_layer(bps::test::palette_label(model::LayerType::dropout), "fc1", &dropout));
        const float first_rate = document.layer(dropout)->rate;
        InspectorDock dock(&document);
        dock.show_layer(QString::fromStdString(dropout));
        QSlider* slider = dock.rate_slider();
        QCOMPARE(slider->maximum(), 95);
        const int steps = document.undo_stack()->count();

        // A press, a drag across several values, a release (what the mouse does to a slider).
        slider->setSliderDown(true);
        for (int percent : {10, 25, 40, 60}) slider->setValue(percent);
        slider->setSliderDown(false);
        QCOMPARE(document.layer(dropout)->rate, 0.6f);
        QCOMPARE(dock.rate_box()->value(), 60);
        QCOMPARE(document.undo_stack()->count(), steps + 1);

        // A second drag is a second step.
        slider->setSliderDown(true);
        for (int percent : {50, 30}) slider->setValue(percent);
        slider->setSliderDown(false);
        QCOMPARE(document.layer(dropout)->rate, 0.3f);
        QCOMPARE(document.undo_stack()->count(), steps + 2);

        document.undo_stack()->undo();
        QCOMPARE(document.layer(dropout)->rate, 0.6f);
        QCOMPARE(slider->value(), 60);
        document.undo_stack()->undo();
        QCOMPARE(document.layer(dropout)->rate, first_rate);
        QCOMPARE(slider->value(), qRound(first_rate * 100));
        QCOMPARE(dock.rate_box()->value(), qRound(first_rate * 100));
    }

    void choosingCifar10ForTheInputMakesTheInputShape3x32x32() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show_layer("input");
        QComboBox* datasets = dock.dataset_box();
        QCOMPARE(datasets->currentData().toString(), QString("fashion-mnist"));
        QCOMPARE(dock.input_shape_label()->text(), QString("(1, 28, 28)"));
        const int cifar = datasets->findData(QString("cifar10"));
        QVERIFY(cifar >= 0);
        QCOMPARE(datasets->itemText(cifar), QString("CIFAR-10"));

        datasets->setCurrentIndex(cifar);
        QCOMPARE(document.project().dataset.name, std::string("cifar10"));
        const model::NodeReport* input = document.node_report("input");
        QVERIFY(input && input->output);
        QCOMPARE(input->output->sample_text(), std::string("(3, 32, 32)"));
        QCOMPARE(dock.input_shape_label()->text(), QString("(3, 32, 32)"));

        document.undo_stack()->undo();
        QCOMPARE(document.project().dataset.name, std::string("fashion-mnist"));
        QCOMPARE(datasets->currentData().toString(), QString("fashion-mnist"));
        QCOMPARE(dock.input_shape_label()->text(), QString("(1, 28, 28)"));
    }

    void choosingAnImageFolderSetsTheProjectsFolderAndCancellingKeepsTheDataset() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show_layer("input");
        QComboBox* datasets = dock.dataset_box();
        const int folder_entry = datasets->count() - 1;

        dock.set_folder_chooser([](QWidget*, const QString&) { return QString(); });
        const int steps = document.undo_stack()->count();
        datasets->setCurrentIndex(folder_entry);
        QCOMPARE(document.undo_stack()->count(), steps);
        QCOMPARE(datasets->currentData().toString(), QString("fashion-mnist"));

        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        dock.set_folder_chooser([&](QWidget*, const QString&) { return folder.path(); });
        datasets->setCurrentIndex(folder_entry);
        QCOMPARE(QString::fromStdString(document.project().dataset.folder), folder.path());
        QVERIFY(document.project().dataset.name.empty());
        QCOMPARE(datasets->currentIndex(), folder_entry);
        // The folder's images are scaled to the size shown; now the learner can change it.
        auto* height = dock.findChild<QSpinBox*>("imageHeight");
        QVERIFY(height && height->isEnabled());
        height->setValue(64);
        QCOMPARE(document.project().dataset.height, 64);
    }

    void theInspectorShowsNothingWithoutALayer() {
        NetworkDocument document;
        open_example(document, "cnn");
        InspectorDock dock(&document);
        dock.show();
        QVERIFY(dock.placeholder()->isVisible());
        QCOMPARE(dock.placeholder()->text(), QString("Select a layer to edit it"));
        dock.show_layer("fc1");
        QVERIFY(!dock.placeholder()->isVisible());
        QVERIFY(dock.units_box()->isVisible());
        QVERIFY(!dock.rate_slider()->isVisible());
        QVERIFY(!document.remove_layers({"fc1"}));
        QVERIFY(dock.shown_layer().isEmpty());
        QVERIFY(dock.placeholder()->isVisible());
        dock.show_layer("");
        QVERIFY(dock.placeholder()->isVisible());
    }
};

BACKPROP_QT_TEST(EditorDocksTest)
#include "test_editor_docks.moc"
