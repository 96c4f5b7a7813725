// The dashboard in the real window with real runs on PoCL: Train locks the network, shows the
// stages and fills the curves with every reported point; Pause, Step, Resume and Stop do what
// they say (no batch while paused, exactly one per step, the weights kept on a stop); a new
// learning rate is marked; a run's receipt and history are on disk and read back by another
// window; a broken network, a divergence and a missing dataset each get their message. Every wait
// is on a signal or a state, with a bound.
#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/gui/training_controller.h"
#include "app/gui/training_runner.h"
#include "datasets/catalogue.h"
#include "engine/base/build_info.h"
#include "engine/cl/device_use_mark.h"
#include "engine/device/device_description.h"
#include "engine/device/self_test_record.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/runs/run_record.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/devices.h"
#include "engine/session/run_evaluation.h"
#include "tests/ui/own_cache_root.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/training_fixtures.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/run_status.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_curves.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/devices/device_list_model.h"
#include "ui/devices/device_panel.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/project_recovery.h"

using namespace bps;
using RunState = ui::TrainPanel::RunState;

namespace {
constexpr int dashboard_run_timeout_ms = 180000;  // a cold kernel cache on a busy machine
}

using test::OwnCacheRoot;

class TrainingDashboardTest : public QObject {
    Q_OBJECT
    QTemporaryDir shared_;  // the image folder, written once
    std::unique_ptr<QTemporaryDir> folder_;
    std::unique_ptr<ui::MainWindow> window_;
    std::unique_ptr<app::TrainingController> controller_;

    std::filesystem::path images() const { return std::filesystem::path(shared_.filePath("halves").toStdString()); }
    std::filesystem::path here(const char* name) const { return folder_->filePath(name).toStdString(); }

    std::unique_ptr<ui::MainWindow> make_window(std::vector<device::DeviceDescription> devices = {}) {
        ui::StartupFacts facts;
        if (!devices.empty()) facts.default_device = device::default_device_index(devices);
        facts.devices = std::move(devices);
        facts.dataset_catalogue = datasets::catalogue();
        facts.data_root = here("data");
        facts.recovery_folder = here("recovery");
        auto window = std::make_unique<ui::MainWindow>(std::move(facts));
        window->prompts().error = [](const QString& message) { QFAIL(qPrintable("unexpected error: " + message)); };
        window->resize(1400, 900);
        return window;
    }
    std::unique_ptr<app::TrainingController> make_controller(ui::MainWindow* window) {
        auto controller = std::make_unique<app::TrainingController>(window, here("unsaved-runs"));
        // Every batch reported: the tests count them.
        controller->adjust_setup = [](session::JobSetup& setup) {
            setup.report_interval = std::chrono::milliseconds(0);
        };
        return controller;
    }
    // The project saved as a file and opened, as a learner's would be.
    void open(project::Project project, const char* name = "halves.json") {
        project::save_project(here(name), project);
        QVERIFY(window_->open_project(folder_->filePath(name)));
    }
    ui::TrainPanel* panel() const { return window_->train_panel(); }
    ui::TrainingDashboard* dashboard() const { return window_->dashboard(); }
    void press(QPushButton* button) {
        QVERIFY2(button->isEnabled(), qPrintable(button->objectName() + " is disabled"));
        QTest::mouseClick(button, Qt::LeftButton);
    }
    // Waits for the run to end, and returns its record as the controller wrote it.
    session::RunRecord wait_for_end(QSignalSpy& ended) {
        if (ended.isEmpty() && !ended.wait(dashboard_run_timeout_ms)) {
            qWarning("the run did not end; status: %s", qPrintable(dashboard()->status()->stage_text()));
            return {};
        }
        return ended.takeFirst().at(0).value<session::RunRecord>();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<session::RunRecord>();
        QVERIFY(test::write_two_class_folder(images(), 256));
    }
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
        window_ = make_window();
        controller_ = make_controller(window_.get());
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }
    void cleanup() {
        controller_.reset();
        if (window_) window_->document()->undo_stack()->setClean();
        window_.reset();
        folder_.reset();
    }

    // Every run keeps a checkpoint; Continue training starts a new run from it whose curves go on
    // where the first ended, and the run's weights file opens as the project it was trained from.
    void continueTrainingGoesOnFromTheCheckpointAndTheWeightsOpenAsTheProject() {
        const project::Project project = test::two_class_folder_project(images());
        open(project);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        const session::RunRecord first = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(first.receipt.outcome), QString("finished"));
        QVERIFY(std::filesystem::exists(first.folder / "checkpoint.h5"));
        // The receipt and the weights name the version that trained them, as --version does.
        QCOMPARE(QString::fromStdString(first.receipt.app_version), QString::fromStdString(session::program_version()));
        QCOMPARE(
            QString::fromStdString(session::read_saved_weights(first.folder / "weights.h5").contents.program_version),
            QString::fromStdString(session::program_version()));
        const QString first_id = QString::fromStdString(first.id());
        QVERIFY(dashboard()->run_list()->can_continue(first_id));

        // A finished run goes on for the project's epochs again: 3 more.
        emit dashboard()->run_list()->continueRequested(first_id);
        QVERIFY(controller_->running());
        const session::RunRecord second = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(second.receipt.outcome), QString("finished"));
        QCOMPARE(QString::fromStdString(second.receipt.name), QString("Run 2 (continued from Run 1)"));
        QCOMPARE(second.receipt.epochs_completed, 6);
        QCOMPARE(second.history.batches.size(), std::size_t{36});  // only the three new epochs
        QVERIFY(second.history.batches.front().position >= 3.0);
        QVERIFY(second.history.batches.front().position > first.history.batches.back().position - 1e-9);

        // The weights file alone opens as the project: same layers, not saved as a project file yet.
        QVERIFY(window_->open_project(QString::fromStdString(first.weights().string())));
        QVERIFY(window_->document()->file().empty());
        QVERIFY(window_->document()->is_modified());
        const auto& layers = window_->document()->project().network.layers;
        QCOMPARE(layers.size(), project.network.layers.size());
        for (std::size_t l = 0; l < layers.size(); ++l) QCOMPARE(layers[l].name, project.network.layers[l].name);
    }

    // A weights file holds no optimiser state (a run's weights, or what an exported training script
    // saved): Resume Training from it starts a new run from its weights, for the project's epochs.
    void aWeightsFileWithoutTrainingStateStartsANewRunFromItsWeights() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        const session::RunRecord first = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(first.receipt.outcome), QString("finished"));
        const QString kept = folder_->filePath("trained.h5");
        QVERIFY(QFile::copy(QString::fromStdString(first.weights().string()), kept));

        window_->prompts().checkpoint_path = [&] { return kept; };
        window_->resume_checkpoint_action()->trigger();
        QVERIFY(controller_->running());
        const session::RunRecord second = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(second.receipt.outcome), QString("finished"));
        // The weights file's project, not yet saved as a file: its own list of runs.
        QCOMPARE(QString::fromStdString(second.receipt.name), QString("Run 1 (continued from trained.h5)"));
        QCOMPARE(second.receipt.epochs_completed, first.receipt.epochs_completed);
        QCOMPARE(second.history.batches.size(), first.history.batches.size());
        QCOMPARE(second.history.batches.front().position, first.history.batches.front().position);
        // From the trained weights, not from new ones: the first batches already have the low loss
        // that the first run reached only at its end.
        const double first_start = first.history.batches.front().loss;
        const double second_start = second.history.batches.front().loss;
        QVERIFY2(second_start < 0.5 * first_start,
                 qPrintable(QString("first batch loss %1 from the file's weights, %2 from new ones")
                                .arg(second_start)
                                .arg(first_start)));
        window_->document()->undo_stack()->setClean();  // the test leaves the opened project unsaved
    }

    // The learner's way out and back: a run exported for training in PyTorch trains there (one
    // process, on the CPU), and the weights file it saves comes back into the studio, where a new
    // run goes on from those weights.
    void aRunExportedForTrainingInPyTorchTrainsThereAndComesBack() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        const session::RunRecord first = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(first.receipt.outcome), QString("finished"));
        const QString script = folder_->filePath("halves_train.py");
        dashboard()->run_list()->ask_script_path = [&](const QString&) { return script; };
        emit window_->export_menu()->aboutToShow();
        auto* export_action = window_->export_menu()->findChild<QAction*>("exportPyTorchTrainingScriptAction");
        QVERIFY(export_action && export_action->isEnabled());
        export_action->trigger();
        QVERIFY(QFile::exists(script));

        // The script starts from the run's weights, copied beside it, and saves beside it under its
        // own name by default.
        QVERIFY(QFile::exists(folder_->filePath("halves_train_start.h5")));
        const QString trained = folder_->filePath("halves_train.h5");
        QProcess python;
        python.start("/usr/bin/python3", {script, "--epochs", "1"});
        QVERIFY2(python.waitForFinished(300000), "the exported script did not end within 5 minutes");
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        QVERIFY(QFile::exists(trained));

        window_->prompts().checkpoint_path = [&] { return trained; };
        window_->resume_checkpoint_action()->trigger();
        QVERIFY(controller_->running());
        const session::RunRecord back = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(back.receipt.outcome), QString("finished"));
        QCOMPARE(QString::fromStdString(back.receipt.name), QString("Run 1 (continued from halves_train.h5)"));
        // It starts where PyTorch left off: already far below the loss of new weights.
        const double new_start = first.history.batches.front().loss;
        const double back_start = back.history.batches.front().loss;
        QVERIFY2(back_start < 0.5 * new_start, qPrintable(QString("first batch loss %1 from PyTorch's weights, %2 "
                                                                  "from new ones")
                                                              .arg(back_start)
                                                              .arg(new_start)));
        QVERIFY(back.receipt.validation && back.receipt.validation->accuracy > 0.8);
        window_->document()->undo_stack()->setClean();  // the test leaves the opened project unsaved
    }

    // `backprop train` records its run as the studio does: the studio's run list shows it, and
    // `backprop runs` lists it beside the studio's own run, each with its evaluation.
    void aCommandLineRunAndAStudioRunShareOneList() {
        project::Project project = test::two_class_folder_project(images());
        project.training.epochs = 1;
        open(project);
        QProcess train;
        train.start(BACKPROP_CLI, {"train", folder_->filePath("halves.json")});
        QVERIFY2(train.waitForFinished(dashboard_run_timeout_ms), "backprop train did not end");
        const QString trained = QString::fromUtf8(train.readAllStandardOutput() + train.readAllStandardError());
        QVERIFY2(train.exitCode() == 0, qPrintable(trained));
        QVERIFY2(trained.contains("run recorded in " + QString::fromStdString(here("halves.runs").string())),
                 qPrintable(trained));

        // Opened again, the project lists the command line's run, with its curves.
        QVERIFY(window_->open_project(folder_->filePath("halves.json")));
        const QStringList ids = dashboard()->run_list()->run_ids();
        QCOMPARE(ids.size(), 1);
        const session::RunRecord* cli_run = dashboard()->run_list()->run(ids.front());
        QVERIFY(cli_run);
        QCOMPARE(QString::fromStdString(cli_run->receipt.name), QString("Run 1"));
        QCOMPARE(QString::fromStdString(cli_run->receipt.outcome), QString("finished"));
        QCOMPARE(cli_run->history.epochs.size(), std::size_t{1});
        QVERIFY(std::filesystem::exists(cli_run->weights()));

        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        const session::RunRecord studio_run = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(studio_run.receipt.name), QString("Run 2"));

        QProcess runs;
        runs.start(BACKPROP_CLI, {"runs", folder_->filePath("halves.json"), "--json"});
        QVERIFY2(runs.waitForFinished(60000), "backprop runs did not end");
        QCOMPARE(runs.exitCode(), 0);
        const QList<QByteArray> lines = runs.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const auto line = [&](int i) { return nlohmann::json::parse(lines[i].toStdString()); };
        QCOMPARE(line(0)["name"].get<std::string>(), std::string("Run 1"));
        QCOMPARE(line(1)["name"].get<std::string>(), std::string("Run 2"));
        QCOMPARE(line(1)["id"].get<std::string>(), studio_run.id());
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(line(i)["outcome"].get<std::string>(), std::string("finished"));
            QVERIFY(line(i)["evaluation"].get<bool>());
            QVERIFY(session::read_run_evaluation(line(i)["folder"].get<std::string>()).has_value());
        }
    }

    // File > Export acts on the newest run with weights; File > Resume Training from Checkpoint…
    // opens the checkpoint's project and goes on from it.
    void theFileMenuExportsTheNewestRunAndResumesFromACheckpointFile() {
        open(test::two_class_folder_project(images()));
        auto* export_menu = window_->export_menu();
        emit export_menu->aboutToShow();
        for (QAction* action : export_menu->actions()) QVERIFY(!action->isEnabled());  // no run yet

        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        const session::RunRecord first = wait_for_end(ended);
        emit export_menu->aboutToShow();
        auto* pytorch = export_menu->findChild<QAction*>("exportPyTorchScriptAction");
        QVERIFY(pytorch && pytorch->isEnabled());
        const QString script = folder_->filePath("halves_model.py");
        dashboard()->run_list()->ask_script_path = [&](const QString&) { return script; };
        pytorch->trigger();
        QVERIFY(QFile::exists(script));
        QVERIFY(QFile::exists(folder_->filePath("halves_model.h5")));

        // The checkpoint copied elsewhere, as a learner might keep one.
        const QString kept = folder_->filePath("kept-checkpoint.h5");
        QVERIFY(QFile::copy(QString::fromStdString((first.folder / "checkpoint.h5").string()), kept));
        window_->prompts().checkpoint_path = [&] { return kept; };
        window_->resume_checkpoint_action()->trigger();
        QVERIFY(controller_->running());
        QVERIFY(window_->document()->file().empty());  // the checkpoint's project, not saved as a file yet
        const session::RunRecord resumed = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(resumed.receipt.outcome), QString("finished"));
        QCOMPARE(QString::fromStdString(resumed.receipt.name), QString("Run 1 (continued from kept-checkpoint.h5)"));
        QCOMPARE(resumed.receipt.epochs_completed, 6);
        QVERIFY(resumed.history.batches.front().position >= 3.0);
        window_->document()->undo_stack()->setClean();  // the test leaves the opened project unsaved
    }

    void trainLocksTheNetworkFillsTheCurvesAndKeepsTheRunBesideTheProject() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QSignalSpy reports(controller_->runner(), &app::TrainingRunner::batchReported);
        press(panel()->train_button());

        // At once: the Training tab, the run listed and live, the network locked and saying why.
        QCOMPARE(window_->panels()->currentWidget(), static_cast<QWidget*>(dashboard()));
        QCOMPARE(dashboard()->run_list()->run_ids().size(), 1);
        const QString id = dashboard()->run_list()->run_ids().front();
        QCOMPARE(dashboard()->live_run(), id);
        QCOMPARE(QString::fromStdString(dashboard()->run_list()->run(id)->receipt.name), QString("Run 1"));
        QVERIFY(window_->document()->locked());
        const std::optional<std::string> refused = window_->document()->add_layer("Dense", {0, 0});
        QVERIFY(refused.has_value());
        QVERIFY(QString::fromStdString(*refused).contains("Stop the run to edit it"));
        QVERIFY(!window_->undo_action()->isEnabled());
        auto* banner = window_->findChild<QLabel*>("lockBanner");
        QVERIFY(banner && !banner->isHidden());
        QVERIFY(!panel()->train_button()->isEnabled());
        QVERIFY(panel()->stop_button()->isEnabled());

        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("finished"));
        QCOMPARE(record.receipt.epochs_completed, 3);
        // 192 training images in batches of 16, every batch reported: 36 points, each the batch's own.
        QCOMPARE(reports.count(), 36);
        QCOMPARE(record.history.batches.size(), std::size_t{36});
        for (int i = 0; i < reports.count(); ++i) {
            const auto report = reports.at(i).at(0).value<session::BatchReport>();
            const session::BatchPoint& point = record.history.batches[static_cast<std::size_t>(i)];
            QCOMPARE(point.position, report.position());
            QCOMPARE(point.loss, report.recent_loss);
            QCOMPARE(point.accuracy, report.recent_accuracy);
        }
        // The curves hold exactly those points, and draw every one.
        const session::RunHistory* drawn = dashboard()->curves()->history(id);
        QVERIFY(drawn);
        QCOMPARE(drawn->batches.size(), std::size_t{36});
        QCOMPARE(drawn->epochs.size(), std::size_t{3});
        QCOMPARE(drawn->batches.back().loss, record.history.batches.back().loss);
        dashboard()->curves()->replot_now();
        QCOMPARE(dashboard()->curves()->raw_loss_graph(id)->dataCount(), 36);
        QVERIFY(record.history.epochs.back().validation_accuracy.has_value());
        QVERIFY(*record.history.epochs.back().validation_accuracy > 0.8);

        // Unlocked, idle, and the receipt says what ran where.
        QVERIFY(!window_->document()->locked());
        QVERIFY(banner->isHidden());
        QCOMPARE(panel()->run_state(), RunState::idle);
        QVERIFY(!record.receipt.device.empty());
        QCOMPARE(record.receipt.train_images, std::size_t{192});
        QCOMPARE(record.receipt.validation_images, std::size_t{64});
        QCOMPARE(record.receipt.training.seed, std::uint64_t{7});
        QVERIFY(record.receipt.seconds > 0);
        QCOMPARE(record.folder.parent_path(), here("halves.runs"));
        QCOMPARE(QString::fromStdString(record.receipt.weights_file), QString("weights.h5"));
        QCOMPARE(dashboard()->status()->message_headline(), QString("Training finished"));

        // On disk, read back independently of the window, and listed by another window.
        const session::RunRecord read = session::read_run(record.folder);
        QCOMPARE(read.receipt.outcome, record.receipt.outcome);
        QCOMPARE(read.receipt.device, record.receipt.device);
        QCOMPARE(read.history.batches.size(), std::size_t{36});
        QCOMPARE(read.history.batches[17].loss, record.history.batches[17].loss);
        QVERIFY(read.receipt.validation.has_value());
        QCOMPARE(read.receipt.validation->accuracy, record.receipt.validation->accuracy);
        // The evaluation beside it: each epoch's validation matrix (an image folder has no test split).
        const std::optional<session::RunEvaluation> evaluation = session::read_run_evaluation(record.folder);
        QVERIFY(evaluation.has_value());
        QCOMPARE(evaluation->class_names, (std::vector<std::string>{"left", "right"}));
        QVERIFY(!evaluation->test.has_value());
        QCOMPARE(record.receipt.test_images, std::size_t{0});
        QCOMPARE(evaluation->validation.size(), std::size_t{3});
        QCOMPARE(evaluation->validation.back().epoch, 3);
        QCOMPARE(evaluation->validation.back().confusion.total(), std::size_t{64});
        // The weights file carries its project and model card: the file alone gives the network's arrays.
        const session::SavedWeights weights = session::read_saved_weights(record.weights());
        QVERIFY(weights.project.has_value() && weights.card.has_value());
        QCOMPARE(session::weights_for_network(weights, *weights.project, weights.card->shape).size(), std::size_t{4});

        auto other = make_window();
        auto other_controller = make_controller(other.get());
        QVERIFY(other->open_project(folder_->filePath("halves.json")));
        QCOMPARE(other->dashboard()->run_list()->run_ids(), QStringList{id});
        const session::RunHistory* reread = other->dashboard()->curves()->history(id);
        QVERIFY(reread);
        QCOMPARE(reread->batches.size(), std::size_t{36});
        other_controller.reset();
    }

    // Pause pressed at once (while preparing): the run waits before its first batch. From there
    // every step is exactly one batch, nothing runs between, and the stages confirm each.
    void pauseStepResumeAndStopDoWhatTheySay() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QSignalSpy stages(controller_->runner(), &app::TrainingRunner::stageChanged);
        QSignalSpy reports(controller_->runner(), &app::TrainingRunner::batchReported);
        const auto paused_stages = [&] {
            int count = 0;
            for (const QList<QVariant>& arguments : stages)
                if (arguments.at(0).value<session::StageReport>().stage == session::Stage::paused) ++count;
            return count;
        };
        const auto last_report = [&] { return reports.last().at(0).value<session::BatchReport>(); };

        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_VERIFY_WITH_TIMEOUT(paused_stages() == 1, dashboard_run_timeout_ms);
        QCOMPARE(panel()->run_state(), RunState::paused);
        QCOMPARE(reports.count(), 0);  // paused before the first batch
        // A step's own report is its handshake; the run stays paused through it.
        for (std::size_t step = 1; step <= 2; ++step) {
            press(panel()->step_button());
            QTRY_VERIFY_WITH_TIMEOUT(reports.count() >= static_cast<int>(step), dashboard_run_timeout_ms);
            QCOMPARE(reports.count(), static_cast<int>(step));
            QCOMPARE(last_report().epoch, 0);
            QCOMPARE(last_report().batch, step);
            QCOMPARE(panel()->run_state(), RunState::paused);
            // The pause counts in the step's speed: no time left is shown while paused.
            QCOMPARE(dashboard()->status()->time_left_text(), QString());
            QCOMPARE(dashboard()->status()->progress_text(), QString("epoch 1/3 · batch %1/12 · paused").arg(step));
        }
        // Stop while paused keeps the two batches' weights with the run; no other batch ran.
        press(panel()->stop_button());
        session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("stopped"));
        QCOMPARE(reports.count(), 2);
        QVERIFY(std::filesystem::exists(record.weights()));
        const session::SavedWeights weights = session::read_saved_weights(record.weights());
        QCOMPARE(
            session::weights_for_network(weights, session::project_of(weights), session::card_of(weights).shape).size(),
            std::size_t{4});
        QCOMPARE(dashboard()->status()->message_headline(), QString("Stopped: the weights trained so far are kept"));
        // The pause is marked where the run stood: before its first batch.
        QCOMPARE(record.history.markers.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(record.history.markers.front().text), QString("paused"));
        QCOMPARE(record.history.markers.front().position, 0.0);
        QCOMPARE(panel()->run_state(), RunState::idle);
        QVERIFY(!window_->document()->locked());

        // Pause, one step, Resume: the run goes on to its end, every batch once.
        stages.clear();
        reports.clear();
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_VERIFY_WITH_TIMEOUT(paused_stages() == 1, dashboard_run_timeout_ms);
        press(panel()->step_button());
        QTRY_VERIFY_WITH_TIMEOUT(reports.count() == 1, dashboard_run_timeout_ms);
        press(panel()->resume_button());
        record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("finished"));
        QCOMPARE(reports.count(), 36);
        for (int i = 0; i < 36; ++i) {
            const auto report = reports.at(i).at(0).value<session::BatchReport>();
            QCOMPARE(report.epoch * 12 + static_cast<int>(report.batch), i + 1);
        }
    }

    void aLearningRateChangedDuringTheRunAppliesFromTheNextBatchAndIsMarked() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QSignalSpy reports(controller_->runner(), &app::TrainingRunner::batchReported);
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_COMPARE_WITH_TIMEOUT(panel()->run_state(), RunState::paused, dashboard_run_timeout_ms);
        press(panel()->step_button());
        QTRY_VERIFY_WITH_TIMEOUT(reports.count() == 1 && panel()->run_state() == RunState::paused,
                                 dashboard_run_timeout_ms);
        // The rate box stays editable during the run; the new rate counts from the next batch.
        QVERIFY(panel()->learning_rate_box()->isEnabled());
        panel()->learning_rate_box()->setValue(0.01);
        press(panel()->resume_button());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("finished"));
        QCOMPARE(record.history.batches.size(), std::size_t{36});
        QCOMPARE(record.history.batches[0].learning_rate, double(0.05f));
        for (std::size_t i = 1; i < record.history.batches.size(); ++i)
            QCOMPARE(record.history.batches[i].learning_rate, double(0.01f));
        // Marked where it changed: after the first batch.
        std::vector<std::string> texts;
        for (const session::RunMarker& marker : record.history.markers) texts.push_back(marker.text);
        QCOMPARE(texts, (std::vector<std::string>{"paused", "learning rate 0.05 → 0.01"}));
        QCOMPARE(record.history.markers[1].position, record.history.batches[0].position);
        const QString id = QString::fromStdString(record.id());
        QCOMPARE(dashboard()->curves()->history(id)->markers.size(), std::size_t{2});
        // The project keeps the rate the learner set, as an undo step.
        QCOMPARE(window_->document()->project().training.optimizer.learning_rate, 0.01f);
    }

    void aNetworkWithProblemsDoesNotStartAndPointsToTheProblemsDock() {
        open(test::two_class_folder_project(images()));
        // Five outputs for two classes.
        model::LayerSpec out = *window_->document()->layer("out");
        out.units = 5;
        QVERIFY(!window_->document()->update_layer("out", out));
        QVERIFY(!window_->document()->report().ok());
        QVERIFY(!panel()->train_button()->isEnabled());
        QVERIFY(panel()->train_button()->toolTip().contains("Problems dock"));
        // F5 or a stray call: refused with the reason, and nothing on disk.
        QVERIFY(!controller_->train());
        QCOMPARE(dashboard()->status()->message_headline(), QString("The network has problems, so it cannot train"));
        QVERIFY(dashboard()->status()->message_details().contains("Problems dock"));
        auto* problems = window_->findChild<QDockWidget*>(ui::MainWindow::problems_dock_name);
        QVERIFY(problems);
        QVERIFY(!std::filesystem::exists(here("halves.runs")));
        QVERIFY(!window_->document()->locked());
    }

    void aDivergingRunPausesWithAdviceDrawsNoNaNAndKeepsTheFiniteWeights() {
        project::Project wild = test::two_class_folder_project(images());
        // The most a run accepts, with a weight decay that turns every step into w -= 10 * (g + 10 w),
        // about w * -99: the weights overflow within a few dozen batches, whatever the data.
        wild.training.optimizer.learning_rate = 10.0f;
        wild.training.optimizer.weight_decay = 10.0f;
        open(wild);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        QTRY_VERIFY_WITH_TIMEOUT(panel()->run_state() == RunState::paused, dashboard_run_timeout_ms);
        QCOMPARE(dashboard()->status()->message_headline(), QString("The training diverged, so the run is paused"));
        QVERIFY(dashboard()->status()->message_details().contains("lower learning rate"));
        QVERIFY(dashboard()->status()->message_details().contains("normalised"));
        const QString id = dashboard()->live_run();
        for (const session::BatchPoint& point : dashboard()->curves()->history(id)->batches)
            QVERIFY(std::isfinite(point.loss));
        press(panel()->stop_button());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("diverged"));
        QVERIFY(QString::fromStdString(record.receipt.problem).startsWith("the loss "));
        // The run went back to its last finite weights when it diverged, and those are kept.
        QCOMPARE(QString::fromStdString(record.receipt.weights_file), QString("weights.h5"));
        QVERIFY(std::filesystem::exists(record.folder / "weights.h5"));
        QVERIFY(dashboard()->status()->message_details().contains("The weights from before it diverged"));
        QCOMPARE(dashboard()->status()->stage_text(), QString("Diverged"));
        // Another project: the banner stays with the run's project.
        open(test::two_class_folder_project(images()), "other.json");
        QCOMPARE(dashboard()->status()->message_headline(), QString());
        QCOMPARE(dashboard()->status()->stage_text(), QString("Press Train to start a run."));
    }

    // The Devices tab's Clear Kernel Cache empties our cache and the drivers' caches beside it,
    // and refuses while a run uses them.
    void clearKernelCacheEmptiesOursAndTheDriversButNotDuringARun() {
        // A cache root of this test's own: the suite's shared caches stay as they are.
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const std::filesystem::path cache_root = root.path().toStdString();
        const QByteArray suite_root = qgetenv("BACKPROP_CACHE_DIR");
        qputenv("BACKPROP_CACHE_DIR", root.path().toUtf8());
        // PoCL's cache beside it too: a clear empties the one in use, and the suite's is shared.
        const QByteArray suite_pocl = qgetenv("POCL_CACHE_DIR");
        qunsetenv("POCL_CACHE_DIR");
        cl::KernelCache cache(cache_root / "kernels");
        const cl::CacheKey key{"kernel void k() {}", {},    "Portable Computing Language",
                               "OpenCL 3.0 PoCL",    "cpu", "3.1"};
        QVERIFY(cache.store(key, {1, 2, 3, 4}));
        std::filesystem::create_directories(cache_root / "pocl" / "AB");
        std::ofstream(cache_root / "pocl" / "AB" / "kernel.so") << "x";
        ui::DevicePanel* devices = window_->device_panel();
        // On the Devices tab, as the learner would be.
        for (QTabWidget* tabs : window_->findChildren<QTabWidget*>())
            if (tabs->indexOf(devices) >= 0) tabs->setCurrentWidget(devices);
        QVERIFY(devices->isVisible());
        press(devices->clear_cache_button());
        qputenv("BACKPROP_CACHE_DIR", suite_root);
        if (!suite_pocl.isEmpty()) qputenv("POCL_CACHE_DIR", suite_pocl);
        const QString cleared = devices->cache_status()->text();
        QVERIFY2(cleared.contains("removed 1 cached program from " +
                                  QString::fromStdString((cache_root / "kernels").string())),
                 qPrintable(cleared));
        QVERIFY2(cleared.contains("emptied PoCL's cache in " + QString::fromStdString((cache_root / "pocl").string())),
                 qPrintable(cleared));
        QVERIFY(!std::filesystem::exists(cache.entry_path(key)));
        QVERIFY(std::filesystem::is_empty(cache_root / "pocl"));

        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QVERIFY(controller_->train());
        press(devices->clear_cache_button());
        QCOMPARE(devices->cache_status()->text(),
                 QString("Stop the training run first: it is using the cached kernels."));
        press(panel()->stop_button());
        wait_for_end(ended);
    }

    // A device the start-up crash guard skips is marked on the Devices tab and in the Train panel;
    // Use Again takes it back, on disk too, as `backprop devices --enable` does.
    void aSkippedDeviceIsShownAndUseAgainEnablesIt() {
        const OwnCacheRoot root;  // what is stored about the device here, no other test sees
        QVERIFY(root.isValid());
        std::vector<device::DeviceDescription> devices = device::list_devices();
        QVERIFY(!devices.empty());
        // Two processes that died while building for it (ids no process has), as a crashing
        // compiler leaves them: the second recovery skips the device.
        for (std::uint64_t dead : {2147483000ULL, 2147483001ULL}) {
            const std::filesystem::path mark =
                cl::DeviceUseMark::mark_path(root.path().toStdString(), devices[0], dead);
            std::filesystem::create_directories(mark.parent_path());
            std::ofstream(mark) << "building: in use by process " << dead << "\n";
            const cl::DeviceUseMark recovered(root.path().toStdString(), devices[0]);
        }
        devices = device::list_devices();
        QVERIFY2(!devices[0].skipped.empty(), "the crash guard did not skip the device");

        auto window = make_window(devices);
        app::TrainingController controller(window.get(), here("unsaved-runs"));
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        ui::DevicePanel* panel = window->device_panel();
        for (QTabWidget* tabs : window->findChildren<QTabWidget*>())
            if (tabs->indexOf(panel) >= 0) tabs->setCurrentWidget(panel);
        QAbstractItemModel* model = panel->table()->model();
        const auto marker = [&] { return model->index(0, 0).data().toString(); };
        const auto train_entry = [&] {
            QComboBox* box = window->train_panel()->device_box();
            for (int i = 0; i < box->count(); ++i)
                if (box->itemData(i).toString() == QString::number(devices[0].index)) return box->itemText(i);
            return QString();
        };
        QCOMPARE(marker(), QString("skipped"));
        QVERIFY2(model->index(0, 1).data(Qt::ToolTipRole).toString().contains("backprop devices --enable"),
                 qPrintable(model->index(0, 1).data(Qt::ToolTipRole).toString()));
        QVERIFY2(train_entry().endsWith(" (skipped)"), qPrintable(train_entry()));
        QVERIFY2(panel->summary()->text().startsWith("Every device is skipped"), qPrintable(panel->summary()->text()));

        panel->table()->selectRow(0);
        press(panel->use_again_button());
        QCOMPARE(panel->cache_status()->text(),
                 QString::fromStdString(devices[0].name) +
                     " is used again. If the program dies again while building kernels for it, it is skipped again.");
        QVERIFY(device::list_devices()[0].skipped.empty());  // on disk: every later run may use it
        QVERIFY(marker() != QString("skipped"));
        QVERIFY2(!train_entry().contains("(skipped)"), qPrintable(train_entry()));
        QVERIFY(!panel->use_again_button()->isEnabled());
        QVERIFY2(panel->summary()->text().startsWith("Training runs on <b>"), qPrintable(panel->summary()->text()));
    }

    // A device whose self-test found wrong results (stored as a real test would store it) is
    // marked on the Devices tab with the figures, and on the Train panel's list.
    void aDeviceWithWrongResultsIsMarkedWithItsFigures() {
        const OwnCacheRoot root;  // what is stored about the device here, no other test sees
        QVERIFY(root.isValid());
        std::vector<device::DeviceDescription> devices = device::list_devices();
        QVERIFY(!devices.empty());
        device::SelfTestResult wrong;
        wrong.checks = {{"training step: loss, relative difference", 0.37, 1e-4}};
        wrong.date = "2026-11-25 20:00 UTC";
        QVERIFY(device::store_self_test(root.path().toStdString(), devices[0], wrong));
        devices = device::list_devices();
        QCOMPARE(devices[0].self_test, device::SelfTestState::wrong_results);

        auto window = make_window(devices);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        ui::DevicePanel* panel = window->device_panel();
        QAbstractItemModel* model = panel->table()->model();
        const QModelIndex self_test = model->index(0, ui::DeviceListModel::SelfTest);
        QCOMPARE(self_test.data().toString(), QString("WRONG RESULTS"));
        QCOMPARE(self_test.data(Qt::ForegroundRole).value<QColor>(), QColor(Qt::red));
        const QString figures = self_test.data(Qt::ToolTipRole).toString();
        QVERIFY2(figures.contains("computed wrong results in its self-test: training step: loss, relative difference: "
                                  "0.37 (float rounding allows 0.0001)"),
                 qPrintable(figures));
        QCOMPARE(model->index(0, ui::DeviceListModel::Marker).data().toString(), QString("wrong results"));
        if (devices.size() == 1)
            QVERIFY2(panel->summary()->text().startsWith("No device passed its self-test: <b>"),
                     qPrintable(panel->summary()->text()));
        QComboBox* box = window->train_panel()->device_box();
        bool listed = false;
        for (int i = 0; i < box->count(); ++i)
            if (box->itemData(i).toString() == QString::number(devices[0].index)) {
                listed = true;
                QVERIFY2(box->itemText(i).endsWith(" (wrong results)"), qPrintable(box->itemText(i)));
                QVERIFY(box->itemData(i, Qt::ToolTipRole).toString().contains("computed wrong results"));
            }
        QVERIFY(listed);
    }

    // A checkpoint may come from anywhere, and HDF5 1.10.8 itself can crash on some damaged files:
    // the unsaved changes are in the recovery file before the file is read.
    void unsavedChangesGoToTheRecoveryFileBeforeACheckpointIsRead() {
        open(test::two_class_folder_project(images()));
        ui::NetworkDocument* document = window_->document();
        const std::string first = document->project().network.layers.front().name;
        QVERIFY(!document->rename_layer(first, "renamed_before_resume"));
        QVERIFY(document->is_modified());
        QVERIFY(!QFile::exists(window_->recovery()->file()));
        const std::filesystem::path damaged = here("damaged.h5");
        std::ofstream(damaged) << "not HDF5 at all";
        QVERIFY(!controller_->resume_from(damaged));
        QVERIFY(QFile::exists(window_->recovery()->file()));
        QFile recovered(window_->recovery()->file());
        QVERIFY(recovered.open(QIODevice::ReadOnly));
        QVERIFY(recovered.readAll().contains("renamed_before_resume"));
        QCOMPARE(dashboard()->status()->message_headline(), QString("Training cannot go on from this run"));
    }

    void aMissingDatasetFailsWithWhatToDoAndTheWindowStaysUsable() {
        project::Project gone = test::two_class_folder_project(here("no-such-images"));
        open(gone);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QVERIFY(controller_->train());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("failed"));
        QVERIFY(QString::fromStdString(record.receipt.problem).contains("no-such-images"));
        QCOMPARE(dashboard()->status()->message_headline(), QString("The dataset cannot be read"));
        QVERIFY(dashboard()->status()->message_details().contains("no-such-images"));
        QCOMPARE(panel()->run_state(), RunState::idle);
        QVERIFY(!window_->document()->locked());
        QCOMPARE(session::read_run(record.folder).receipt.outcome, std::string("failed"));
    }

    void anUnsavedProjectsRunsMoveBesideItsFileOnTheFirstSave() {
        window_->document()->reset(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QVERIFY(controller_->train());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(record.folder.parent_path().parent_path(), here("unsaved-runs"));
        QVERIFY(window_->save_to(folder_->filePath("saved.json")));
        const std::filesystem::path moved = here("saved.runs") / record.id();
        QVERIFY(std::filesystem::exists(moved / "receipt.json"));
        QVERIFY(!std::filesystem::exists(record.folder));
        QCOMPARE(dashboard()->run_list()->run_ids(), QStringList{QString::fromStdString(record.id())});
        QCOMPARE(session::read_run(moved).history.batches.size(), record.history.batches.size());
    }

    // A project never saved (a template, a weights file opened) keeps its runs only with it: New,
    // Open or closing asks first, even with no change to save. Before, the runs vanished from the
    // studio when another project was opened.
    void replacingAnUnsavedProjectWithRunsAsksAndSavingKeepsThem() {
        window_->document()->reset(test::two_class_folder_project(images()));
        QVERIFY(!window_->document()->is_modified());
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QVERIFY(controller_->train());
        const session::RunRecord record = wait_for_end(ended);
        QVERIFY(std::filesystem::exists(record.folder));
        QStringList questions;
        ui::UnsavedChoice answer = ui::UnsavedChoice::cancel;
        window_->prompts().unsaved_runs = [&](const QString& question) {
            questions.append(question);
            return answer;
        };
        window_->prompts().unsaved_changes = [](const QString&) {
            [] { QFAIL("asked about changes, not about the runs"); }();
            return ui::UnsavedChoice::cancel;
        };
        QVERIFY(!window_->new_project("mlp"));
        QVERIFY(!window_->close());
        QCOMPARE(questions.size(), 2);
        QVERIFY2(questions[0].contains("was never saved, and its 1 training run(s) are kept only with it") ||
                     questions[0].contains("was never saved, and its 1 training run are kept only with it"),
                 qPrintable(questions[0]));
        QCOMPARE(dashboard()->run_list()->run_ids(), QStringList{QString::fromStdString(record.id())});
        // Save: the project is saved where the learner says, and its runs go beside it.
        answer = ui::UnsavedChoice::save;
        window_->prompts().save_path = [&](const QString&) { return folder_->filePath("kept.json"); };
        QVERIFY(window_->new_project("mlp"));
        QVERIFY(std::filesystem::exists(here("kept.runs") / record.id() / "receipt.json"));
        // Projects with a file, or without runs, are replaced without the question.
        QVERIFY(window_->new_project("cnn"));
        QCOMPARE(questions.size(), 3);
    }

    // Closing the window, Open or New during a run ask first; saying no keeps the run going.
    void replacingTheProjectOrClosingDuringARunAsksToStopIt() {
        open(test::two_class_folder_project(images()));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QStringList questions;
        bool answer = false;
        window_->prompts().stop_run = [&](const QString& question) {
            questions.append(question);
            return answer;
        };
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_COMPARE_WITH_TIMEOUT(panel()->run_state(), RunState::paused, dashboard_run_timeout_ms);
        QVERIFY(!window_->new_project("mlp"));
        QVERIFY(!window_->close());
        QCOMPARE(questions.size(), 2);
        QVERIFY(questions[0].contains("A run is training this project"));
        QVERIFY(controller_->running());
        QVERIFY(window_->isVisible());
        // Yes: the run stops (its weights kept) and the window closes without waiting for it.
        answer = true;
        QVERIFY(window_->close());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("stopped"));
        QVERIFY(std::filesystem::exists(record.weights()));
    }

    void twoRunsOverlayInTheirOwnColours() {
        project::Project quick = test::two_class_folder_project(images());
        quick.training.epochs = 1;
        open(quick);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        QVERIFY(controller_->train());
        const session::RunRecord first = wait_for_end(ended);
        QVERIFY(controller_->train());
        const session::RunRecord second = wait_for_end(ended);
        QCOMPARE(second.receipt.name, std::string("Run 2"));
        const QStringList both{QString::fromStdString(first.id()), QString::fromStdString(second.id())};
        QCOMPARE(dashboard()->run_list()->ticked_runs(), both);
        QCOMPARE(dashboard()->curves()->shown_runs().size(), 2);
        QVERIFY(dashboard()->run_list()->colour_of(both[0]) != dashboard()->run_list()->colour_of(both[1]));
        QCOMPARE(dashboard()->curves()->smoothed_loss_graph(both[1])->pen().color(),
                 dashboard()->run_list()->colour_of(both[1]));
    }
};

BACKPROP_QT_TEST(TrainingDashboardTest)
#include "test_training_dashboard.moc"
