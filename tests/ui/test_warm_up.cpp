// The studio's warm-up at start (app/gui/kernel_warm_up.h), on the test device with an empty
// kernel cache: it reports n/N in the status bar through to N/N and goes, fills the cache (a
// second start finds it warm and builds nothing), and its self-test reaches the Devices and
// Compare Devices tabs; a Train pressed during it waits for it and trains, with nothing built
// twice; a warm-up that fails says so quietly, and a run then reports its own error. Builds are
// counted with the engine's fault-injection seam (a fault armed that never fires). Each test
// keeps its own kernel cache root, and PoCL's cache starts empty; waits are on signals with a
// bound, never on the clock.
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <limits>
#include <memory>

#include "app/gui/kernel_warm_up.h"
#include "app/gui/training_runner.h"
#include "engine/cl/fault_injection.h"
#include "engine/session/devices.h"
#include "kernels/embedded_kernels.h"
#include "tests/support/two_class_images.h"
#include "tests/ui/own_cache_root.h"
#include "tests/ui/qt_test_class.h"
#include "ui/devices/comparison_panel.h"
#include "ui/devices/device_list_model.h"
#include "ui/devices/device_panel.h"
#include "ui/main_window/main_window.h"

using namespace bps;

namespace {

constexpr int warm_up_timeout_ms = 180000;  // every kernel and the self-test, cold, on a busy machine

using test::OwnCacheRoot;

// Counts the programs built from source from now on (a build fault that never fires).
void count_builds() {
    cl::arm_fault({cl::FaultPoint::build, std::numeric_limits<std::uint64_t>::max(), CL_BUILD_PROGRAM_FAILURE});
}

// The programs the tuning built: one per variant timed on a CPU (only gemm.cl, ops/kernel_tuner.h),
// and one more when today's tiles were timed a second time.
std::size_t tuning_builds(const device::TuningRecord& tuning) {
    return tuning.timed.size() + (tuning.today_timed_twice ? 1 : 0);
}

std::size_t programs() {
    return kernels::embedded_sources().size();
}

session::JobSetup tiny_run(std::string device_request = {}) {
    session::JobSetup setup;
    setup.data = test::two_class_data();
    setup.project = test::two_class_project(2);
    setup.project.training.epochs = 1;
    setup.source = "halves.json";
    setup.device_request = std::move(device_request);
    return setup;
}

}  // namespace

class WarmUpTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> folder_;
    QTemporaryDir pocl_cache_;

    std::unique_ptr<ui::MainWindow> make_window() {
        ui::StartupFacts facts;
        facts.devices = device::list_devices();
        facts.default_device = device::default_device_index(facts.devices);
        facts.recovery_folder = folder_->filePath("recovery").toStdString();
        facts.data_root = folder_->filePath("data").toStdString();
        return std::make_unique<ui::MainWindow>(std::move(facts));
    }
    static std::unique_ptr<app::KernelWarmUp> warm_up_of(ui::MainWindow& window) {
        return std::make_unique<app::KernelWarmUp>(window.statusBar(), window.device_panel(),
                                                   window.comparison_panel());
    }
    static bool start(app::KernelWarmUp& warm_up) {
        const std::vector<device::DeviceDescription> devices = device::list_devices();
        return warm_up.start(devices, device::default_device_index(devices));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        // PoCL's own cache, read once when the driver starts: empty too, so that the first test
        // (Train joining a warm-up) meets a cold compiler as a first start does. The later ones
        // find PoCL's cache filled but their own kernel cache empty, which the builds count.
        qputenv("POCL_CACHE_DIR", pocl_cache_.path().toUtf8());
        QVERIFY(!device::list_devices().empty());
    }
    void init() { folder_ = std::make_unique<QTemporaryDir>(); }
    void cleanup() { cl::disarm_fault(); }

    void aTrainPressedDuringTheWarmUpJoinsItAndTrains() {
        OwnCacheRoot cache_root;
        count_builds();
        const auto window = make_window();
        const auto warm_up = warm_up_of(*window);
        QSignalSpy progressed(warm_up.get(), &app::KernelWarmUp::progressed);
        QSignalSpy warm_finished(warm_up.get(), &app::KernelWarmUp::finished);
        QVERIFY(start(*warm_up));
        QVERIFY2(progressed.wait(warm_up_timeout_ms), "the warm-up reported nothing");

        app::TrainingRunner runner;
        QSignalSpy stages(&runner, &app::TrainingRunner::stageChanged);
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        QSignalSpy failed(&runner, &app::TrainingRunner::failed);
        bool warm_up_over_when_training_began = false;
        connect(&runner, &app::TrainingRunner::runStarted, this,
                [&] { warm_up_over_when_training_began = !warm_up->running(); });
        QVERIFY(runner.start(tiny_run()));  // Train, while the kernels build
        QVERIFY(warm_up->running());
        QVERIFY2(finished.wait(warm_up_timeout_ms), "the run did not finish");
        QCOMPARE(failed.count(), 0);
        QVERIFY(warm_up_over_when_training_began);
        QCOMPARE(warm_finished.count(), 1);

        // The run's stage showed the warm-up's progress: kernels counted short of all of them,
        // and the self-test, run once (by the warm-up).
        const std::size_t n = programs();
        bool joined_part_way = false;
        int tests = 0;
        for (const QList<QVariant>& arguments : stages) {
            const auto stage = arguments.at(0).value<session::StageReport>();
            joined_part_way =
                joined_part_way || (stage.activity == "building kernels" && stage.done < n && stage.total == n);
            if (stage.activity == "testing the device before its first training") ++tests;
        }
        QVERIFY(joined_part_way);
        QCOMPARE(tests, 1);
        // Nothing built twice: the programs, and before them one program per tile variant the
        // tuning timed (CPUs build only gemm.cl per variant, ops/kernel_tuner.h).
        const auto result = warm_finished.at(0).at(0).value<session::DeviceWarmUp>();
        QVERIFY(result.tuning.has_value());
        QCOMPARE(cl::counted_calls(), std::uint64_t{n + tuning_builds(*result.tuning)});
    }

    void theWarmUpBuildsEveryKernelOnceAndTheSelfTestReachesBothTabs() {
        OwnCacheRoot cache_root;
        count_builds();
        const auto window = make_window();
        // Compare Devices keeps a comparison that ran before the self-test: "not run yet" then.
        bench::DeviceComparison compared;
        compared.device = window->device_panel()->device_with_index(0).value();
        compared.device.self_test = device::SelfTestState::not_run;
        bench::ComparisonRecord record;
        record.date = "2026-11-26 20:00 UTC";
        record.project = "cnn";
        record.network = "cnn";
        record.devices = {compared};
        ui::ComparisonPanel* comparison = window->comparison_panel();
        comparison->set_history({record}, 0);
        const int self_test_column = ui::ComparisonPanel::self_test_column;
        QCOMPARE(comparison->table()->item(0, self_test_column)->text(), QString("not run yet"));
        QVERIFY(comparison->device_list()->item(0)->text().endsWith("self-test not run yet"));

        const auto warm_up = warm_up_of(*window);
        QLabel* status = window->statusBar()->findChild<QLabel*>("warmUpStatus");
        QVERIFY(status);
        QVERIFY(status->isHidden());
        std::vector<session::WarmUpProgress> heard;
        QStringList shown;
        connect(warm_up.get(), &app::KernelWarmUp::progressed, this, [&](const session::WarmUpProgress& progress) {
            heard.push_back(progress);
            shown << (status->isVisibleTo(window.get()) ? status->text() : QString("(hidden)"));
        });
        QSignalSpy finished(warm_up.get(), &app::KernelWarmUp::finished);
        QVERIFY(start(*warm_up));
        QVERIFY(warm_up->running());
        QVERIFY2(!start(*warm_up), "a second warm-up started beside the first");
        QVERIFY2(finished.wait(warm_up_timeout_ms), "the warm-up did not end");

        // Opening, each tile variant the tuning timed (1/V to T/V), 0/N to N/N, then the self-test,
        // each said in the status bar as it came.
        const auto result = finished.at(0).at(0).value<session::DeviceWarmUp>();
        QVERIFY(!result.was_warm);
        QVERIFY(result.tuning.has_value());
        const std::size_t n = programs(), tuned = result.tuning->timed.size(),
                          variants = tuned + result.tuning->untimed;
        QCOMPARE(heard.size(), 1 + tuned + n + 2);
        QCOMPARE(shown.front(), QString("Preparing the device: opening it"));
        for (std::size_t done = 1; done <= tuned; ++done)
            QCOMPARE(shown.at(static_cast<int>(done)),
                     QString("Preparing the device: tuning kernels %1/%2").arg(done).arg(variants));
        for (std::size_t done = 0; done <= n; ++done)
            QCOMPARE(shown.at(static_cast<int>(tuned + done + 1)),
                     QString("Preparing the device: %1/%2 kernels").arg(done).arg(n));
        QCOMPARE(shown.back(), QString("Preparing the device: testing it"));
        QVERIFY2(status->isHidden(), "the status line stayed after the warm-up");

        QVERIFY(result.self_test.has_value());
        QVERIFY2(result.self_test->correct(), result.self_test->summary().c_str());
        // Every program built once, each variant timed once (today's twice when another beat it).
        QCOMPARE(cl::counted_calls(), std::uint64_t{n + tuning_builds(*result.tuning)});

        // The tuning's choice in the Devices tab's Kernel tiles column, what it found in the tip.
        const device::DeviceDescription tuned_device = window->device_panel()->device_with_index(0).value();
        const QModelIndex tiles = window->device_panel()->table()->model()->index(0, ui::DeviceListModel::Kernels);
        QCOMPARE(tiles.data().toString(), QString::fromStdString(result.tuning->chosen.describe(tuned_device.kind)));
        QCOMPARE(tiles.data(Qt::ToolTipRole).toString(),
                 QString::fromStdString("Tuned: " + result.tuning->summary(tuned_device.kind)));

        // The self-test's result where the self-test is shown.
        const QString passed("passed");
        QCOMPARE(window->device_panel()->table()->model()->index(0, ui::DeviceListModel::SelfTest).data().toString(),
                 passed);
        QVERIFY(comparison->device_list()->item(0)->text().endsWith("self-test passed"));
        QCOMPARE(comparison->table()->item(0, self_test_column)->text(), passed);

        // The next start finds the cache warm: it builds and tests nothing, and shows nothing.
        const auto window_again = make_window();
        const auto again = warm_up_of(*window_again);
        QSignalSpy progressed_again(again.get(), &app::KernelWarmUp::progressed);
        QSignalSpy finished_again(again.get(), &app::KernelWarmUp::finished);
        QVERIFY(start(*again));
        QVERIFY2(finished_again.wait(warm_up_timeout_ms), "the second warm-up did not end");
        const auto second = finished_again.at(0).at(0).value<session::DeviceWarmUp>();
        QVERIFY(second.was_warm);
        QVERIFY(!second.self_test.has_value());
        QCOMPARE(progressed_again.count(), 0);
        QVERIFY(window_again->statusBar()->findChild<QLabel*>("warmUpStatus")->isHidden());
        QCOMPARE(cl::counted_calls(), std::uint64_t{n + tuning_builds(*result.tuning)});  // not even tuned again
    }

    void aFailingWarmUpSaysSoQuietlyAndTrainReportsItsOwnError() {
        OwnCacheRoot cache_root;
        const auto window = make_window();
        const auto warm_up = warm_up_of(*window);
        QSignalSpy failed_warm_up(warm_up.get(), &app::KernelWarmUp::failed);
        std::vector<device::DeviceDescription> devices = device::list_devices();
        devices.at(0).name = "a device unplugged since the start";
        QVERIFY(warm_up->start(devices, 0));
        QVERIFY2(failed_warm_up.wait(warm_up_timeout_ms), "the warm-up did not fail");
        QLabel* status = window->statusBar()->findChild<QLabel*>("warmUpStatus");
        QVERIFY(status->isVisibleTo(window.get()));
        QCOMPARE(status->text(), QString("The device could not be prepared"));
        QCOMPARE(status->toolTip(), failed_warm_up.at(0).at(0).toString());
        QVERIFY(status->toolTip().contains("OpenCL"));

        // A run on a device that is not there fails with its own words, at once.
        app::TrainingRunner runner;
        QSignalSpy failed(&runner, &app::TrainingRunner::failed);
        QVERIFY(runner.start(tiny_run("no device is called this")));
        QVERIFY2(failed.wait(warm_up_timeout_ms), "the run did not fail");
        const auto failure = failed.at(0).at(0).value<session::JobFailure>();
        QVERIFY2(QString::fromStdString(failure.message).contains("no device is called this"), failure.message.c_str());
    }
};

BACKPROP_QT_TEST(WarmUpTest)
#include "test_warm_up.moc"
