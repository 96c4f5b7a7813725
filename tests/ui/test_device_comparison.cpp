// The Compare Devices tab: the panel on its own (what it asks for, how it shows results, the
// running state, CSV export), then real comparisons on the test device through the window, the
// ComparisonController and the worker thread: results shown and kept across starts, a cancel, the
// cold and warm start through the command line, and a damaged history moved aside. Waits are on
// signals with a bound, never on the clock.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "app/gui/comparison_controller.h"
#include "app/gui/comparison_runner.h"
#include "engine/project/project.h"
#include "engine/session/devices.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/training_fixtures.h"
#include "ui/devices/comparison_charts.h"
#include "ui/devices/comparison_panel.h"
#include "ui/main_window/main_window.h"

using namespace bps;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(bps::ui::ComparisonRequest)

namespace {

constexpr int comparison_timeout_ms = 240000;  // cold caches on a busy machine, under QtTest's 300 s per test

device::DeviceDescription fake_device(std::size_t index, const char* name) {
    device::DeviceDescription device;
    device.index = index;
    device.name = name;
    device.platform_name = "Test Platform";
    device.driver_version = "1.2.3";
    device.kind = device::DeviceKind::IntegratedGpu;
    device.compute_units = 8;
    device.global_memory_bytes = 2ull << 30;
    return device;
}

std::vector<device::DeviceDescription> three_devices() {
    std::vector<device::DeviceDescription> devices = {fake_device(0, "Good GPU"), fake_device(1, "Skipped GPU"),
                                                      fake_device(2, "Broken GPU")};
    devices[0].self_test = device::SelfTestState::passed;
    devices[1].skipped = "skipped: the program died twice while building kernels for it";
    devices[2].self_test = device::SelfTestState::wrong_results;
    devices[2].self_test_summary = "SGEMM off by 0.5";
    return devices;
}

bench::DeviceComparison measured(std::size_t index, const char* name, double images_per_s) {
    bench::DeviceComparison result;
    result.device = fake_device(index, name);
    result.device.self_test = device::SelfTestState::passed;
    result.images_per_s = images_per_s;
    result.step_ms = 2.5;
    result.cold_start_s = 4.25;
    result.warm_start_s = 0.5;
    result.copy_gb_per_s = 100;
    result.sgemm_gflops_per_s = 2000;
    result.step_gflops_per_s = 200;
    result.step_gb_per_s = 10;
    result.of_sgemm_peak = 0.1;
    result.of_bandwidth = 0.1;
    result.device_bytes = 1 << 20;
    result.kernels_per_step = 20;
    result.gemms_per_step = 6;
    result.losses = {2.0, 1.5, 1.25};
    return result;
}

bench::ComparisonRecord record(const char* network, std::vector<bench::DeviceComparison> devices) {
    bench::ComparisonSetup setup;
    setup.network_name = network;
    setup.batch_size = 64;
    setup.curve_batches = 3;
    return bench::make_comparison_record(setup, "reference network", std::move(devices));
}

QString cell(const ui::ComparisonPanel& panel, int row, int column) {
    const QTableWidgetItem* item = panel.table()->item(row, column);
    return item ? item->text() : QString();
}

QString read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return QString::fromStdString(std::string(std::istreambuf_iterator<char>(in), {}));
}

}  // namespace

class DeviceComparisonTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> folder_;
    QTemporaryDir shared_;  // the image folder, written once

    fs::path here(const char* name) const { return folder_->filePath(name).toStdString(); }
    fs::path images() const { return fs::path(shared_.filePath("halves").toStdString()); }

    std::unique_ptr<ui::MainWindow> make_window() {
        ui::StartupFacts facts;
        facts.devices = device::list_devices();
        facts.default_device = device::default_device_index(facts.devices);
        facts.data_root = here("data");
        facts.recovery_folder = here("recovery");
        auto window = std::make_unique<ui::MainWindow>(std::move(facts));
        window->prompts().error = [](const QString& message) { QFAIL(qPrintable("unexpected error: " + message)); };
        return window;
    }
    // Compare pressed with the panel's choices; waits for the end and returns the controller's
    // results (the newest kept record's devices).
    bool run_to_end(ui::ComparisonPanel* panel, app::ComparisonController& controller) {
        QSignalSpy finished(controller.runner(), &app::ComparisonRunner::finished);
        QSignalSpy failed(controller.runner(), &app::ComparisonRunner::failed);
        if (!panel->compare_button()->isEnabled()) {
            qWarning("Compare is disabled: %s", qPrintable(panel->status()->text()));
            return false;
        }
        QTest::mouseClick(panel->compare_button(), Qt::LeftButton);
        if (finished.isEmpty() && failed.isEmpty() && !finished.wait(comparison_timeout_ms)) {
            qWarning("the comparison did not end; status: %s", qPrintable(panel->status()->text()));
            return false;
        }
        if (!failed.isEmpty()) qWarning("failed: %s", qPrintable(failed.front().at(0).toString()));
        return failed.isEmpty();
    }
    static void choose_network(ui::ComparisonPanel* panel, const char* network) {
        panel->network_choice()->setCurrentIndex(panel->network_choice()->findData(QString(network)));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<ui::ComparisonRequest>();
        QVERIFY(test::write_two_class_folder(images(), 64));
    }
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
    }

    // ---- the panel on its own

    void thePanelAsksForTheTickedUsableDevicesAndTheChoices() {
        ui::ComparisonPanel panel(three_devices());
        QListWidget* list = panel.device_list();
        QCOMPARE(list->count(), 3);
        QCOMPARE(list->item(0)->checkState(), Qt::Checked);
        QVERIFY(list->item(0)->text().contains("0: Good GPU"));
        QVERIFY(list->item(0)->text().contains("integrated GPU · 8 units · 2.0 GiB · self-test passed"));
        QVERIFY(!(list->item(1)->flags() & Qt::ItemIsEnabled));  // skipped: not to be ticked
        QVERIFY(list->item(1)->toolTip().contains("died twice"));
        QCOMPARE(list->item(2)->checkState(), Qt::Unchecked);  // wrong results: not ticked by default
        QVERIFY(list->item(2)->text().contains("self-test WRONG RESULTS"));
        QVERIFY(list->item(2)->toolTip().contains("SGEMM off by 0.5"));

        QSignalSpy asked(&panel, &ui::ComparisonPanel::compareRequested);
        list->item(2)->setCheckState(Qt::Checked);  // the learner may still compare it
        choose_network(&panel, "cnn");
        panel.batch_size()->setValue(32);
        panel.curve_batches()->setValue(20);
        panel.first_batch()->setChecked(false);
        QTest::mouseClick(panel.compare_button(), Qt::LeftButton);
        QCOMPARE(asked.size(), 1);
        const auto request = asked.front().at(0).value<ui::ComparisonRequest>();
        QCOMPARE(request.devices, (std::vector<std::size_t>{0, 2}));
        QCOMPARE(request.network, QString("cnn"));
        QCOMPARE(request.batch_size, 32);
        QCOMPARE(request.curve_batches, 20);
        QVERIFY(request.device_figures);
        QVERIFY(!request.first_batch);

        list->item(0)->setCheckState(Qt::Unchecked);
        list->item(2)->setCheckState(Qt::Unchecked);
        QVERIFY(!panel.compare_button()->isEnabled());
        QCOMPARE(panel.compare_button()->toolTip(), QString("Tick at least one device"));
    }

    void thePanelShowsRunsSideBySideAndKeepsEarlierOnes() {
        ui::ComparisonPanel panel(three_devices());
        bench::DeviceComparison failed;
        failed.device = fake_device(2, "Broken GPU");
        failed.error = "out of device memory (on Broken GPU)";
        const bench::ComparisonRecord older = record("mlp", {measured(0, "Good GPU", 1000)});
        bench::DeviceComparison rounded = measured(3, "Other GPU", 800);
        rounded.losses = {2.0, 1.5000003, 1.2500001};
        const bench::ComparisonRecord newer = record("cnn", {measured(0, "Good GPU", 12345.6), failed, rounded});
        panel.set_history({older, newer}, 1);

        QCOMPARE(panel.history_choice()->count(), 2);
        QCOMPARE(panel.history_choice()->itemText(0), QString::fromStdString(newer.title()));  // newest first
        QVERIFY(
            panel.run_heading()->text().contains("network cnn, batch size 64, loss curve of 3 batches. The loss "
                                                 "curves differ by at most 3e-07 (float rounding)."));
        QCOMPARE(panel.table()->rowCount(), 3);
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::device_column), QString("0: Good GPU"));
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::driver_column), QString("1.2.3"));
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::images_column), QLocale().toString(12346));
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::cold_column), QLocale().toString(4.25, 'f', 2) + " s");
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::of_sgemm_column), QLocale().toString(10.0, 'f', 1) + " %");
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::kernels_column), QString("20 + 6"));
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::final_loss_column), QLocale().toString(1.25, 'f', 4));
        QCOMPARE(cell(panel, 1, ui::ComparisonPanel::images_column), QString("–"));
        QCOMPARE(cell(panel, 1, ui::ComparisonPanel::problem_column), QString("out of device memory (on Broken GPU)"));

        // The bars: one group per device; a device with no figure gets no bar.
        ui::ComparisonCharts* charts = panel.charts();
        QCustomPlot* images_plot = charts->plot(ui::ComparisonCharts::images_per_s);
        QCOMPARE(images_plot->plottableCount(), 1);
        auto* bars = qobject_cast<QCPBars*>(images_plot->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 2);
        QCOMPARE(bars->data()->at(0)->value, 12345.6);
        QCOMPARE(bars->data()->at(1)->key, 3.0);  // the third device's place; the failed one has none
        QCOMPARE(bars->data()->at(1)->value, 800.0);
        QCustomPlot* starts = charts->plot(ui::ComparisonCharts::first_batch);
        QCOMPARE(starts->plottableCount(), 2);  // cold and warm side by side
        QCOMPARE(qobject_cast<QCPBars*>(starts->plottable(1))->data()->at(0)->value, 0.5);
        QCustomPlot* share = charts->plot(ui::ComparisonCharts::peak_share);
        QCOMPARE(qobject_cast<QCPBars*>(share->plottable(0))->data()->at(0)->value, 10.0);  // percent
        QCustomPlot* losses = charts->plot(ui::ComparisonCharts::loss);
        QCOMPARE(losses->graphCount(), 2);  // the failed device trained no curve
        QCOMPARE(losses->graph(0)->data()->size(), 3);
        QCOMPARE(losses->graph(0)->data()->at(2)->value, 1.25);
        QCOMPARE(losses->graph(0)->name(), QString("0: Good GPU"));

        panel.history_choice()->setCurrentIndex(1);  // the older run
        QCOMPARE(panel.table()->rowCount(), 1);
        QCOMPARE(cell(panel, 0, ui::ComparisonPanel::images_column), QLocale().toString(1000));
        QVERIFY(panel.run_heading()->text().endsWith("network mlp, batch size 64, loss curve of 3 batches"));

        panel.set_history({record("mlp", {measured(0, "Good GPU", 1000), measured(3, "Other GPU", 800)})}, 0);
        QVERIFY(panel.run_heading()->text().endsWith(". The loss curves are identical on every device."));
    }

    void whileRunningOnlyCancelIsOfferedAndProgressShows() {
        ui::ComparisonPanel panel(three_devices());
        QSignalSpy cancelled(&panel, &ui::ComparisonPanel::cancelRequested);
        panel.set_running(true);
        QVERIFY(!panel.compare_button()->isEnabled());
        QVERIFY(!panel.device_list()->isEnabled());
        QVERIFY(!panel.export_button()->isEnabled());
        QVERIFY(panel.cancel_button()->isEnabled());
        QVERIFY(!panel.progress_bar()->isHidden());
        bench::ComparisonProgress progress;
        progress.device_position = 1;
        progress.device_count = 2;
        progress.device_name = "Good GPU";
        progress.activity = "loss curve, batch 11 of 50";
        progress.fraction = 0.75;
        panel.show_progress(progress);
        QCOMPARE(panel.progress_bar()->value(), 750);
        QCOMPARE(panel.status()->text(), QString("Device 2 of 2 (Good GPU): loss curve, batch 11 of 50"));
        panel.add_device_result(measured(0, "Good GPU", 500));
        QCOMPARE(panel.table()->rowCount(), 1);  // shown as soon as the device is done

        QTest::mouseClick(panel.cancel_button(), Qt::LeftButton);
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!panel.cancel_button()->isEnabled());  // asked once; the end confirms
        QCOMPARE(panel.status()->text(), QString("Cancelling after the current step…"));
        panel.set_running(false);
        QVERIFY(panel.compare_button()->isEnabled());
        QVERIFY(panel.progress_bar()->isHidden());
    }

    void exportWritesEveryKeptRunAsCsv() {
        ui::ComparisonPanel panel(three_devices());
        const std::vector<bench::ComparisonRecord> records = {record("mlp", {measured(0, "Good GPU", 1000)}),
                                                              record("cnn", {measured(0, "Good GPU", 900)})};
        panel.set_history(records, 1);
        const fs::path csv = here("comparisons.csv");
        panel.ask_csv_path = [&] { return QString::fromStdString(csv.string()); };
        QTest::mouseClick(panel.export_button(), Qt::LeftButton);
        QCOMPARE(read_text(csv), QString::fromStdString(bench::comparison_csv(records)));
        QCOMPARE(read_text(csv).count("\r\n"), 3);  // the header and a row per device of each run
        QVERIFY(panel.status()->text().startsWith("Saved 2 comparisons to "));

        panel.ask_csv_path = [&] { return QString::fromStdString((here("no-such-folder") / "x.csv").string()); };
        QTest::mouseClick(panel.export_button(), Qt::LeftButton);
        QVERIFY2(panel.status()->text().contains("could not be saved"), qPrintable(panel.status()->text()));
        panel.ask_csv_path = [] { return QString(); };  // the dialog cancelled: nothing changes
        QTest::mouseClick(panel.export_button(), Qt::LeftButton);
        QVERIFY(panel.status()->text().contains("could not be saved"));
    }

    // ---- real comparisons on the test device

    void aComparisonRunsShowsAndIsKeptForTheNextStart() {
        const fs::path history = here("comparisons.json");
        auto window = make_window();
        ui::ComparisonPanel* panel = window->comparison_panel();
        {
            app::ComparisonController controller(window.get(), history, here("no-backprop-here"));
            QCOMPARE(panel->history_choice()->count(), 0);
            choose_network(panel, "mlp");
            panel->batch_size()->setValue(16);
            panel->curve_batches()->setValue(3);
            panel->device_figures()->setChecked(false);
            QSignalSpy progressed(controller.runner(), &app::ComparisonRunner::progressed);
            QSignalSpy compared(controller.runner(), &app::ComparisonRunner::deviceCompared);
            QVERIFY(run_to_end(panel, controller));
            QVERIFY(!progressed.isEmpty());
            QCOMPARE(compared.size(), 1);
            QCOMPARE(panel->status()->text(),
                     QString("Compared 1 device. Cold and warm starts were not timed: the command line %1 is not "
                             "there.")
                         .arg(QString::fromStdString(here("no-backprop-here").string())));
            QCOMPARE(panel->table()->rowCount(), 1);
            QVERIFY(cell(*panel, 0, ui::ComparisonPanel::problem_column).isEmpty());
            QVERIFY(panel->compare_button()->isEnabled());
        }
        const std::vector<bench::ComparisonRecord> kept = bench::read_comparison_history(history);
        QCOMPARE(kept.size(), std::size_t{1});
        QCOMPARE(kept[0].network, std::string("mlp"));
        QCOMPARE(kept[0].project, std::string("reference network"));
        QCOMPARE(kept[0].devices.size(), std::size_t{1});
        const bench::DeviceComparison& result = kept[0].devices[0];
        QCOMPARE(result.device.name, device::list_devices()[0].name);
        QVERIFY(!result.device.driver_version.empty());
        QVERIFY(result.images_per_s > 0);
        QCOMPARE(result.losses.size(), std::size_t{3});
        QVERIFY(!result.cold_start_s);

        // The next start shows it again.
        auto again = make_window();
        app::ComparisonController controller(again.get(), history, here("no-backprop-here"));
        QCOMPARE(again->comparison_panel()->history_choice()->count(), 1);
        QCOMPARE(again->comparison_panel()->table()->rowCount(), 1);
    }

    void aSavedProjectIsComparedWithItsColdAndWarmStart() {
        const fs::path project_file = here("halves.json");
        project::save_project(project_file, test::two_class_folder_project(images()));
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(project_file.string())));
        app::ComparisonController controller(window.get(), here("comparisons.json"), BACKPROP_CLI);
        ui::ComparisonPanel* panel = window->comparison_panel();
        choose_network(panel, ui::ComparisonPanel::current_project);
        panel->batch_size()->setValue(8);
        panel->curve_batches()->setValue(2);
        panel->device_figures()->setChecked(false);
        QVERIFY(run_to_end(panel, controller));
        QCOMPARE(controller.history().size(), std::size_t{1});
        const bench::ComparisonRecord& kept = controller.history().back();
        QCOMPARE(kept.project, std::string("halves"));
        const bench::DeviceComparison& result = kept.devices.at(0);
        QVERIFY2(result.start_error.empty(), result.start_error.c_str());
        QVERIFY(result.cold_start_s && *result.cold_start_s > 0);
        QVERIFY(result.warm_start_s && *result.warm_start_s > 0);
        QCOMPARE(result.losses.size(), std::size_t{2});
    }

    void cancelEndsTheComparisonAndKeepsWhatWasMeasured() {
        auto window = make_window();
        app::ComparisonController controller(window.get(), here("comparisons.json"), here("no-backprop-here"));
        ui::ComparisonPanel* panel = window->comparison_panel();
        choose_network(panel, "mlp");
        panel->batch_size()->setValue(16);
        panel->curve_batches()->setValue(100000);  // far longer than the test waits: only Cancel ends it
        panel->device_figures()->setChecked(false);
        // Cancel as soon as the loss curve is under way (a handshake on the progress signal).
        connect(controller.runner(), &app::ComparisonRunner::progressed, panel,
                [panel](const bench::ComparisonProgress& progress) {
                    if (progress.activity.rfind("loss curve", 0) == 0 && panel->cancel_button()->isEnabled())
                        QTest::mouseClick(panel->cancel_button(), Qt::LeftButton);
                });
        QVERIFY(run_to_end(panel, controller));
        QVERIFY(panel->status()->text().startsWith("Cancelled; what was measured is kept."));
        QCOMPARE(controller.history().size(), std::size_t{1});
        const bench::DeviceComparison& result = controller.history().back().devices.at(0);
        QVERIFY(result.cancelled);
        QVERIFY(result.images_per_s > 0);  // measured before the curve began
        QVERIFY(result.losses.size() < 100000);
        QCOMPARE(cell(*panel, 0, ui::ComparisonPanel::problem_column), QString("cancelled"));
    }

    void aComparisonWaitsForTrainingAndRefusesABrokenProject() {
        auto window = make_window();
        app::ComparisonController controller(window.get(), here("comparisons.json"), here("no-backprop-here"));
        ui::ComparisonPanel* panel = window->comparison_panel();
        controller.busy_reason = [] { return QString("A training run is using the devices"); };
        ui::ComparisonRequest request = panel->request();
        request.network = "mlp";
        QVERIFY(!controller.compare(request));
        QCOMPARE(panel->status()->text(), QString("A training run is using the devices"));
        QVERIFY(!controller.running());

        controller.busy_reason = {};
        project::Project broken = test::two_class_folder_project(images());
        // Opens (the editor shows its problem), but cannot be built: Dense straight on the images.
        auto& layers = broken.network.layers;
        layers.erase(
            std::remove_if(layers.begin(), layers.end(), [](const model::LayerSpec& l) { return l.name == "flatten"; }),
            layers.end());
        for (model::LayerSpec& layer : layers)
            for (std::string& input : layer.inputs)
                if (input == "flatten") input = "input";
        const fs::path file = here("broken.json");
        project::save_project(file, broken);
        QVERIFY(window->open_project(QString::fromStdString(file.string())));
        request.network = ui::ComparisonPanel::current_project;
        QSignalSpy failed(controller.runner(), &app::ComparisonRunner::failed);
        QVERIFY(controller.compare(request));  // the engine checks the network, on the worker
        QVERIFY(failed.wait(comparison_timeout_ms));
        QVERIFY2(panel->status()->text().startsWith("The comparison could not run: the network 'halves' cannot be "
                                                    "built: "),
                 qPrintable(panel->status()->text()));
        QVERIFY(panel->compare_button()->isEnabled());
    }

    void aDamagedHistoryIsMovedAsideAndNamed() {
        const fs::path history = here("comparisons.json");
        std::ofstream(history) << "{ damaged";
        auto window = make_window();
        app::ComparisonController controller(window.get(), history, here("no-backprop-here"));
        const QString message = window->comparison_panel()->status()->text();
        QVERIFY2(message.startsWith(QString::fromStdString(history.string()) + ": is damaged ("), qPrintable(message));
        QVERIFY(message.endsWith(QString("; it was kept as %1.damaged-1, and a new history starts")
                                     .arg(QString::fromStdString(history.string()))));
        QCOMPARE(read_text(history.string() + ".damaged-1"), QString("{ damaged"));
        QVERIFY(!fs::exists(history));
    }
};

BACKPROP_QT_TEST(DeviceComparisonTest)
#include "test_device_comparison.moc"
