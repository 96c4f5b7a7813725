// A training run driven from the UI thread as the dashboard will drive it: through the
// TrainingRunner (the engine's job behind the WorkerBridge). Every signal comes on the UI thread,
// every report (batch figures, stages, epochs) arrives in order, pause/step/resume are
// confirmed by stage signals, and a network that cannot work fails with its layer. The test
// waits on signals with a bound, never on the clock.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "app/gui/training_runner.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/session/training_data.h"
#include "tests/support/two_class_images.h"
#include "tests/ui/own_cache_root.h"
#include "tests/ui/qt_test_class.h"

using namespace bps;

namespace {
constexpr int runner_timeout_ms = 90000;  // cold kernel caches on a busy machine, under QtTest's 300 s per test

project::Project small_project(int output_units = 2) {
    return test::two_class_project(output_units);
}

session::JobSetup setup_of(project::Project project) {
    session::JobSetup setup;
    setup.data = test::two_class_data();
    setup.project = std::move(project);
    setup.source = "halves.json";
    return setup;
}

std::vector<session::Stage> stages_of(const QSignalSpy& spy) {
    std::vector<session::Stage> stages;
    for (const QList<QVariant>& arguments : spy) {
        const session::Stage stage = arguments.at(0).value<session::StageReport>().stage;
        if (stages.empty() || stages.back() != stage) stages.push_back(stage);
    }
    return stages;
}
}  // namespace

class TrainingRunnerTest : public QObject {
    Q_OBJECT

private slots:
    void aRunReportsOnTheUiThreadAndFinishes() {
        app::TrainingRunner runner;
        QSignalSpy stages(&runner, &app::TrainingRunner::stageChanged);
        QSignalSpy started(&runner, &app::TrainingRunner::runStarted);
        QSignalSpy batches(&runner, &app::TrainingRunner::batchReported);
        QSignalSpy epochs(&runner, &app::TrainingRunner::epochReported);
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        QSignalSpy failed(&runner, &app::TrainingRunner::failed);
        bool all_on_ui_thread = true;
        QThread* ui_thread = QThread::currentThread();
        const auto note_thread = [&] { all_on_ui_thread = all_on_ui_thread && QThread::currentThread() == ui_thread; };
        connect(&runner, &app::TrainingRunner::batchReported, this, note_thread);
        connect(&runner, &app::TrainingRunner::stageChanged, this, note_thread);
        connect(&runner, &app::TrainingRunner::finished, this, note_thread);

        QVERIFY(runner.start(setup_of(small_project())));
        QVERIFY(runner.running());
        QVERIFY2(!runner.start(setup_of(small_project())), "a second run started while one was active");
        QVERIFY2(finished.wait(runner_timeout_ms), "the run did not finish");
        QCOMPARE(failed.count(), 0);
        QVERIFY(all_on_ui_thread);

        const session::JobResult result = finished.at(0).at(0).value<session::JobResult>();
        QCOMPARE(result.epochs_completed, 3);
        QVERIFY(result.test.has_value());
        QCOMPARE(result.test->samples, std::size_t{128});
        QVERIFY(result.test->accuracy > 0.9);
        QCOMPARE(started.count(), 1);
        const session::RunFacts facts = started.at(0).at(0).value<session::RunFacts>();
        QCOMPARE(facts.train_images, std::size_t{192});
        QCOMPARE(facts.validation_images, std::size_t{64});
        // Every epoch arrives, and every batch report the engine sent, in order: each epoch's last
        // batch among them, and positions that only grow.
        QCOMPARE(epochs.count(), 3);
        QVERIFY(batches.count() >= 3);
        QVERIFY(batches.count() <= 36);
        int epoch_ends = 0;
        double position = 0;
        for (const QList<QVariant>& arguments : batches) {
            const session::BatchReport report = arguments.at(0).value<session::BatchReport>();
            if (report.batch == 12) ++epoch_ends;
            QVERIFY(report.position() > position);
            position = report.position();
        }
        QCOMPARE(epoch_ends, 3);
        const session::BatchReport last = batches.last().at(0).value<session::BatchReport>();
        QCOMPARE(last.epoch, 2);
        QCOMPARE(last.batch, std::size_t{12});
        const std::vector<session::Stage> sequence = stages_of(stages);
        QVERIFY(sequence.front() == session::Stage::preparing);
        QVERIFY(sequence.back() == session::Stage::finished);
        QVERIFY(std::count(sequence.begin(), sequence.end(), session::Stage::running) == 3);
    }

    void pauseStepAndResumeAreConfirmedByStages() {
        app::TrainingRunner runner;
        QSignalSpy stages(&runner, &app::TrainingRunner::stageChanged);
        QSignalSpy batches(&runner, &app::TrainingRunner::batchReported);
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        // The dashboard's Pause, pressed as soon as training runs.
        bool pressed = false;
        connect(&runner, &app::TrainingRunner::stageChanged, &runner,
                [&runner, &pressed](const session::StageReport& stage) {
                    if (stage.stage == session::Stage::running && !pressed) {
                        pressed = true;
                        runner.pause();
                    }
                });
        session::JobSetup setup = setup_of(small_project());
        setup.project.training.epochs = 100000;                // still training when the Pause lands
        setup.report_interval = std::chrono::milliseconds(0);  // a report for every batch, so a step shows
        QVERIFY(runner.start(std::move(setup)));
        QTRY_VERIFY_WITH_TIMEOUT(
            !stages.isEmpty() && stages.last().at(0).value<session::StageReport>().stage == session::Stage::paused,
            runner_timeout_ms);
        const int before = batches.count();
        runner.step();
        QTRY_VERIFY_WITH_TIMEOUT(batches.count() > before, runner_timeout_ms);
        QCOMPARE(stages.last().at(0).value<session::StageReport>().stage, session::Stage::paused);
        // A new rate while paused applies from the next batch after Resume.
        runner.set_learning_rate(0.125f);
        runner.resume();
        QTRY_VERIFY_WITH_TIMEOUT(batches.last().at(0).value<session::BatchReport>().learning_rate == 0.125f,
                                 runner_timeout_ms);
        const std::vector<session::Stage> sequence = stages_of(stages);
        const auto paused = std::find(sequence.begin(), sequence.end(), session::Stage::paused);
        QVERIFY(paused != sequence.end());
        QVERIFY(std::find(paused, sequence.end(), session::Stage::running) != sequence.end());
        runner.stop();
        QVERIFY2(finished.wait(runner_timeout_ms), "the run did not stop");
        const session::JobResult result = finished.at(0).at(0).value<session::JobResult>();
        QVERIFY(result.stopped);
    }

    void stopEndsTheRunWithItsWeights() {
        app::TrainingRunner runner;
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        connect(&runner, &app::TrainingRunner::batchReported, &runner, [&runner] { runner.stop(); });
        session::JobSetup setup = setup_of(small_project());
        setup.project.training.epochs = 1000;
        QVERIFY(runner.start(std::move(setup)));
        QVERIFY2(finished.wait(runner_timeout_ms), "the run did not stop");
        const session::JobResult result = finished.at(0).at(0).value<session::JobResult>();
        QVERIFY(result.stopped);
        QVERIFY(result.epochs_completed < 1000);
        QCOMPARE(result.weights.size(), std::size_t{4});
        QVERIFY(!runner.running());
    }

    void anImpossibleNetworkFailsWithItsLayer() {
        app::TrainingRunner runner;
        QSignalSpy failed(&runner, &app::TrainingRunner::failed);
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        QVERIFY(runner.start(setup_of(small_project(5))));
        QVERIFY2(failed.wait(runner_timeout_ms), "no failure arrived");
        QCOMPARE(finished.count(), 0);
        const session::JobFailure failure = failed.at(0).at(0).value<session::JobFailure>();
        QVERIFY(failure.kind == session::FailureKind::project);
        QCOMPARE(failure.layer, std::string("out"));
        QCOMPARE(failure.message,
                 std::string("halves.json: the output 'out' has 5 units but the dataset has 2 classes"));
    }

    void aNoteFromTheEngineReachesTheUiThread() {
        // A mark left by a process that died while it used the device: the run clears that
        // device's driver cache, says so in a note, and trains on.
        const test::OwnCacheRoot cache;  // and PoCL's cache beside it, which the run clears
        QVERIFY(cache.isValid());
        const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
        const cl::DeviceInfo& device = devices.at(cl::select_device(devices, device::device_request(std::nullopt)));
        const std::filesystem::path dead =
            cl::DeviceUseMark::mark_path(cache.path().toStdString(), device, 2147483000);  // no process has it
        std::filesystem::create_directories(dead.parent_path());
        std::ofstream(dead) << "in use";

        app::TrainingRunner runner;
        QSignalSpy noted(&runner, &app::TrainingRunner::noted);
        QSignalSpy finished(&runner, &app::TrainingRunner::finished);
        bool on_ui_thread = false;
        connect(&runner, &app::TrainingRunner::noted, this,
                [&] { on_ui_thread = QThread::currentThread() == QCoreApplication::instance()->thread(); });
        session::JobSetup setup = setup_of(small_project());
        setup.batch_limit = 1;
        QVERIFY(runner.start(std::move(setup)));
        QVERIFY2(finished.wait(runner_timeout_ms), "the run did not finish");
        QCOMPARE(noted.count(), 1);
        QVERIFY(noted.at(0).at(0).toString().contains("ended abruptly while using"));
        QVERIFY(on_ui_thread);
        QVERIFY(!std::filesystem::exists(dead));
    }

    void destroyingTheRunnerMidRunDoesNotWait() {
        // The window closes while a long run trains: the runner goes at once (the bridge only asks
        // the job to stop), and the application carries on.
        auto runner = std::make_unique<app::TrainingRunner>();
        QSignalSpy batches(runner.get(), &app::TrainingRunner::batchReported);
        session::JobSetup setup = setup_of(small_project());
        setup.project.training.epochs = 1000;
        QVERIFY(runner->start(std::move(setup)));
        QVERIFY2(batches.wait(runner_timeout_ms), "training never began");
        runner.reset();
        // The application goes on: a new runner trains to the end beside the one still stopping.
        app::TrainingRunner next;
        QSignalSpy finished(&next, &app::TrainingRunner::finished);
        QVERIFY(next.start(setup_of(small_project())));
        QVERIFY2(finished.wait(runner_timeout_ms), "a run after closing the first one did not finish");
        QCOMPARE(finished.at(0).at(0).value<session::JobResult>().epochs_completed, 3);
    }
};

BACKPROP_QT_TEST(TrainingRunnerTest)
#include "test_training_runner.moc"
