#include "app/gui/training_controller.h"

#include <QDateTime>
#include <QDockWidget>
#include <QStatusBar>
#include <cstdio>
#include <system_error>

#include "app/gui/training_runner.h"
#include "app/gui/unsaved_projects.h"
#include "engine/base/build_info.h"
#include "engine/base/number_text.h"
#include "engine/device/device_description.h"
#include "engine/io/weights_file.h"
#include "engine/runs/checkpoint.h"
#include "engine/session/devices.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/run_status.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_curves.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/devices/device_panel.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/project_recovery.h"
#include "ui/qt_text.h"

namespace bps::app {

namespace {

using RunState = ui::TrainPanel::RunState;
using Tone = ui::RunStatus::Tone;

using ui::text_of;

constexpr int status_message_ms = 8000;

}  // namespace

TrainingController::TrainingController(ui::MainWindow* window, std::filesystem::path unsaved_runs_root, QObject* parent)
    : QObject(parent),
      window_(window),
      runner_(new TrainingRunner(this)),
      unsaved_runs_root_(std::move(unsaved_runs_root)) {
    qRegisterMetaType<session::RunRecord>();
    ui::TrainPanel* panel = window_->train_panel();
    connect(panel, &ui::TrainPanel::trainRequested, this, &TrainingController::train);
    connect(window_->dashboard()->run_list(), &ui::RunList::continueRequested, this,
            [this](const QString& id) { continue_run(id); });
    window_->resume_training = [this](const std::filesystem::path& checkpoint) { return resume_from(checkpoint); };
    connect(panel, &ui::TrainPanel::pauseRequested, this, &TrainingController::pause);
    connect(panel, &ui::TrainPanel::resumeRequested, this, &TrainingController::resume);
    connect(panel, &ui::TrainPanel::stepRequested, this, &TrainingController::step);
    connect(panel, &ui::TrainPanel::stopRequested, this, &TrainingController::stop);
    connect(panel, &ui::TrainPanel::learningRateChanged, this, &TrainingController::learning_rate_changed);

    connect(runner_, &TrainingRunner::stageChanged, this, &TrainingController::stage);
    connect(runner_, &TrainingRunner::runStarted, this, &TrainingController::started);
    connect(runner_, &TrainingRunner::batchReported, this, &TrainingController::batch);
    connect(runner_, &TrainingRunner::epochReported, this, &TrainingController::epoch);
    connect(runner_, &TrainingRunner::finished, this, &TrainingController::finished);
    connect(runner_, &TrainingRunner::failed, this, &TrainingController::failed);
    connect(window_->device_panel(), &ui::DevicePanel::clearCacheRequested, this,
            &TrainingController::clear_kernel_caches);
    connect(window_->device_panel(), &ui::DevicePanel::enableDeviceRequested, this, &TrainingController::enable_device);
    connect(runner_, &TrainingRunner::noted, this, [this](const QString& note) {
        window_->statusBar()->showMessage(tr("Note: %1").arg(note), status_message_ms);
    });

    // Another project: its own runs. A new project that is saved takes its runs along.
    ui::NetworkDocument* document = window_->document();
    connect(document, &ui::NetworkDocument::replaced, this, [this] {
        unsaved_folder_.clear();
        // The last run's stage and banner belong to the project it trained, not to this one.
        if (active_)
            status_of_other_project_ = true;
        else
            window_->dashboard()->status()->reset();
        follow_project();
    });
    connect(window_, &ui::MainWindow::saved, this, [this] { follow_project(); });
    connect(window_->dashboard()->run_list(), &ui::RunList::runRenamed, this,
            [this](const QString& id, const QString& name) {
                if (active_ && id == text_of(recorder_->record().id()))
                    recorder_->record().receipt.name = name.toStdString();
            });
    window_->run_guard = [this] {
        if (!active_) return true;
        const ui::WindowPrompts& prompts = window_->prompts();
        if (prompts.stop_run &&
            !prompts.stop_run(tr("A run is training this project. Stop it? The weights it has trained so far are kept "
                                 "with the run.")))
            return false;
        stop();
        return true;
    };
    window_->unsaved_project_runs = [this] {
        if (!window_->document()->file().empty() || unsaved_folder_.empty()) return 0;
        return static_cast<int>(session::list_runs(unsaved_folder_).size());
    };
    // File ▸ Recover Unsaved Runs…: the other unsaved projects' runs, and one opened again.
    window_->list_unsaved_projects = [this] {
        return list_unsaved_projects(unsaved_runs_root_,
                                     window_->document()->file().empty() ? unsaved_folder_ : std::filesystem::path());
    };
    window_->open_unsaved_project = [this](const std::filesystem::path& folder) { return reopen_unsaved(folder); };
    follow_project();
}

TrainingController::~TrainingController() {
    window_->run_guard = nullptr;
    window_->unsaved_project_runs = nullptr;
    window_->list_unsaved_projects = nullptr;
    window_->open_unsaved_project = nullptr;
    if (!active_) return;
    // The runner (a child) asks the job to stop as it goes; the receipt says why the run ended.
    recorder_->record().receipt.outcome = "stopped";
    recorder_->record().receipt.problem = "the window was closed during the run";
    write_record(true);
}

const session::RunRecord& TrainingController::record() const {
    static const session::RunRecord none;
    return recorder_ ? recorder_->record() : none;
}

bool TrainingController::running() const {
    return active_;
}

void TrainingController::clear_kernel_caches() {
    ui::DevicePanel* panel = window_->device_panel();
    if (active_) {
        panel->show_cache_status(tr("Stop the training run first: it is using the cached kernels."));
        return;
    }
    try {
        QStringList lines;
        for (const std::string& line : device::clear_kernel_caches()) lines << text_of(line);
        panel->show_cache_status(lines.join('\n'));
    } catch (const std::exception& error) {
        panel->show_cache_status(tr("The kernel cache could not be cleared: %1").arg(text_of(error.what())));
    }
}

void TrainingController::enable_device(int device_index) {
    ui::DevicePanel* panel = window_->device_panel();
    if (device_index < 0) return;
    const std::optional<device::DeviceDescription> device =
        panel->device_with_index(static_cast<std::size_t>(device_index));
    if (!device) return;
    const QString name = text_of(device->name);
    try {
        // Not skipped any more on disk (another window, or `backprop devices --enable`): the same.
        device::enable_device(*device);
    } catch (const std::exception& error) {
        panel->show_cache_status(tr("%1 could not be enabled: %2").arg(name, text_of(error.what())));
        return;
    }
    panel->mark_enabled(device->index);
    window_->train_panel()->mark_device_enabled(device->index);
    panel->show_cache_status(
        tr("%1 is used again. If the program dies again while building kernels for it, it is skipped again.")
            .arg(name));
}

std::filesystem::path TrainingController::runs_folder() const {
    const std::filesystem::path& file = window_->document()->file();
    return file.empty() ? unsaved_folder_ : session::runs_folder_for(file);
}

void TrainingController::follow_project() {
    const std::filesystem::path& file = window_->document()->file();
    // A new project's first save: its runs go beside the file (unless a run is writing to them).
    if (!file.empty() && shown_file_.empty() && !unsaved_folder_.empty() && !active_) {
        const std::filesystem::path target = session::runs_folder_for(file);
        std::error_code error;
        if (std::filesystem::exists(unsaved_folder_, error) && !std::filesystem::exists(target, error)) {
            std::filesystem::remove(unsaved_folder_ / unsaved_project_file, error);  // the project file says it now
            std::filesystem::rename(unsaved_folder_, target, error);
            if (error)
                window_->statusBar()->showMessage(tr("The runs of the new project stay in %1: %2")
                                                      .arg(text_of(unsaved_folder_.string()), text_of(error.message())),
                                                  status_message_ms);
        }
        unsaved_folder_.clear();
    }
    if (active_) return;  // the dashboard keeps showing the live run's project until it ends
    shown_file_ = file;
    shown_folder_ = runs_folder();
    window_->dashboard()->run_list()->set_project_file(window_->document()->file());
    window_->dashboard()->show_runs(shown_folder_);
}

bool TrainingController::reopen_unsaved(const std::filesystem::path& folder) {
    if (active_) {
        window_->statusBar()->showMessage(tr("Stop the training run first, then recover the unsaved runs."),
                                          status_message_ms);
        return false;
    }
    project::Project project;
    try {
        project = read_unsaved_project(folder);
    } catch (const std::exception& error) {
        window_->prompts().error(tr("The unsaved project was not opened.\n\n%1").arg(text_of(error.what())));
        return false;
    }
    const QString title = project.name.empty() ? tr("Untitled") : text_of(project.name);
    if (!window_->new_project_from(std::move(project), title)) return false;
    // The project's runs are its own again: the list shows them, Save moves them beside its file.
    unsaved_folder_ = folder;
    follow_project();
    window_->show_dashboard();
    return true;
}

std::string TrainingController::next_run_name() const {
    std::vector<std::string> names;
    const ui::RunList* runs = window_->dashboard()->run_list();
    for (const QString& id : runs->run_ids()) names.push_back(runs->run(id)->receipt.name);
    return session::next_run_name(names);
}

void TrainingController::refuse(const QString& headline, const QString& details) {
    window_->dashboard()->status()->show_message(headline, details, Tone::error);
    window_->show_dashboard();
}

bool TrainingController::train() {
    return start_run(std::nullopt);
}

bool TrainingController::continue_run(const QString& id) {
    if (active_) return false;
    const session::RunRecord* run = window_->dashboard()->run_list()->run(id);
    if (!run) return false;
    return resume_from(run->folder / "checkpoint.h5", run->receipt.name);
}

bool TrainingController::resume_from(const std::filesystem::path& checkpoint) {
    return resume_from(checkpoint, checkpoint.filename().string());
}

bool TrainingController::resume_from(const std::filesystem::path& checkpoint, const std::string& from_name) {
    if (active_) return false;
    // HDF5 1.10.8 itself can crash on some damaged files (tests/fuzz/README.md), and this one may
    // come from anywhere: the unsaved changes go to the recovery file first, so that nothing is lost.
    window_->recovery()->autosave();
    Continuation continuation;
    try {
        // A weights file without a training state (a run's weights, or what an exported training
        // script saved): a new run starts from its weights, with a fresh optimiser, for the epochs
        // the project asks.
        if (!io::read_weights_file_attributes(checkpoint).is_checkpoint()) {
            continuation.weights = checkpoint;
            continuation.from_name = from_name;
            window_->statusBar()->showMessage(
                tr("%1 holds weights but no optimiser state: the new run starts from its weights")
                    .arg(QString::fromStdString(from_name)),
                status_message_ms);
            return start_run(continuation);
        }
        // Its position and project only: the run reads the whole checkpoint.
        const session::CheckpointHeader state = session::read_checkpoint_header(checkpoint);
        const int planned = state.project.training.epochs;
        // Unfinished: to the end it was set for; finished: as many epochs again as the project asks.
        continuation.epochs = state.position.epoch < planned
                                  ? planned
                                  : state.position.epoch + window_->document()->project().training.epochs;
        continuation.learning_rate = state.position.learning_rate;
    } catch (const std::exception& error) {
        refuse(tr("Training cannot go on from this run"), text_of(error.what()));
        return false;
    }
    continuation.checkpoint = checkpoint;
    continuation.from_name = from_name;
    return start_run(continuation);
}

bool TrainingController::start_run(const std::optional<Continuation>& continuation) {
    if (active_) return false;
    ui::NetworkDocument* document = window_->document();
    const project::Project& project = document->project();
    if (!document->report().ok()) {
        refuse(tr("The network has problems, so it cannot train"),
               tr("Fix the %n problem(s) listed in the Problems dock, then press Train again.", nullptr,
                  static_cast<int>(document->report().problems.size())));
        if (auto* problems = window_->findChild<QDockWidget*>(ui::MainWindow::problems_dock_name)) {
            problems->show();
            problems->raise();
        }
        return false;
    }
    if (document->file().empty() && unsaved_folder_.empty())
        unsaved_folder_ =
            unsaved_runs_root_ / QDateTime::currentDateTime().toString("yyyy-MM-dd_HH-mm-ss-zzz").toStdString();
    if (shown_folder_ != runs_folder()) follow_project();
    if (document->file().empty()) {
        // Beside its runs, so File ▸ Recover Unsaved Runs… can open it again if it is never saved.
        try {
            keep_unsaved_project(unsaved_folder_, project);
        } catch (const std::exception& error) {
            window_->statusBar()->showMessage(
                tr("The unsaved project could not be kept beside its runs: %1").arg(text_of(error.what())),
                status_message_ms);
        }
    }

    const QString started_at = QDateTime::currentDateTime().toString(Qt::ISODate);
    session::RunReceipt receipt;
    receipt.name = next_run_name();
    if (continuation) {
        receipt.name += " (continued from ";
        receipt.name += continuation->from_name;
        receipt.name += ")";
    }
    receipt.started_at = started_at.toStdString();
    receipt.app_version = session::program_version();
    receipt.project_name = project.name.empty() ? document->file().stem().string() : project.name;
    receipt.training = project.training;
    if (continuation && continuation->weights.empty()) receipt.training.epochs = continuation->epochs;
    receipt.dataset = project.dataset;
    try {
        recorder_.emplace(runs_folder(), receipt);
    } catch (const std::exception& error) {
        recorder_.reset();
        refuse(tr("The run's folder cannot be made"),
               text_of(error.what()) + tr(". Save the project in a folder you can write to, then press Train again."));
        return false;
    }

    session::JobSetup setup;
    setup.project = project;
    setup.source = document->file().empty() ? "the unsaved project" : document->file().string();
    setup.device_request = window_->train_panel()->device_request().toStdString();
    setup.save_weights = recorder_->weights_file();
    setup.replay_folder = recorder_->folder();  // what the Inside view replays, epoch by epoch
    // Every run can go on later: its checkpoint follows each epoch and a stop.
    setup.checkpoint = recorder_->checkpoint_file();
    if (continuation && !continuation->weights.empty()) {
        setup.weights = continuation->weights;
    } else if (continuation) {
        setup.resume_from = continuation->checkpoint;
        setup.epochs = continuation->epochs;
    }
    setup.on_divergence = session::OnDivergence::pause;
    setup.test_when_stopped = window_->train_panel()->test_when_stopped();
    if (adjust_setup) adjust_setup(setup);
    if (!runner_->start(std::move(setup))) {
        refuse(tr("The run did not start"), tr("Another run is still ending; press Train again in a moment."));
        return false;
    }
    active_ = true;
    stopping_ = false;
    paused_ = false;
    position_ = 0;
    rate_ = continuation && continuation->weights.empty() ? continuation->learning_rate
                                                          : project.training.optimizer.learning_rate;
    started_at_ = std::chrono::steady_clock::now();
    document->set_locked(tr("%1 is training this network, so it cannot change now. Stop the run to edit it; "
                            "its learning rate can still change in the Train panel.")
                             .arg(text_of(receipt.name)));
    window_->train_panel()->set_run_state(RunState::preparing);
    ui::TrainingDashboard* dashboard = window_->dashboard();
    dashboard->status()->clear_message();
    dashboard->begin_run(recorder_->record());
    window_->show_dashboard();
    return true;
}

void TrainingController::stage(const session::StageReport& stage) {
    using session::Stage;
    window_->dashboard()->status()->show_stage(stage);
    if (!active_ || stopping_) return;
    ui::TrainPanel* panel = window_->train_panel();
    switch (stage.stage) {
        case Stage::preparing:
            panel->set_run_state(RunState::preparing);
            break;
        case Stage::running:
        case Stage::evaluating:
            paused_ = false;
            panel->set_run_state(RunState::running);
            break;
        case Stage::paused:
            if (!paused_) {
                // One mark where the run stopped moving, whatever paused it.
                session::RunMarker marker{position_, stage.activity.empty() ? "paused" : "diverged: paused"};
                recorder_->mark(marker);
                window_->dashboard()->curves()->add_marker(text_of(recorder_->record().id()), marker);
            }
            paused_ = true;
            panel->set_run_state(RunState::paused);
            break;
        case Stage::finished:
        case Stage::failed:
            break;  // finished() and failed() end the run
    }
}

void TrainingController::started(const session::RunFacts& facts) {
    window_->dashboard()->status()->show_facts(facts);
    recorder_->started(facts);
    write_record(true);
    window_->dashboard()->update_run(recorder_->record(), false);
}

void TrainingController::batch(const session::BatchReport& report) {
    position_ = report.position();
    const session::BatchPoint point = recorder_->batch(report);
    window_->dashboard()->curves()->add_batch(text_of(recorder_->record().id()), point);
    window_->dashboard()->status()->show_batch(report);
}

void TrainingController::epoch(const session::EpochReport& report) {
    const session::EpochPoint point = recorder_->epoch(report);
    window_->dashboard()->curves()->add_epoch(text_of(recorder_->record().id()), point);
    window_->dashboard()->status()->show_epoch(report);
    write_record(true);  // a crash later still leaves the curves so far
    window_->dashboard()->update_run(recorder_->record(), false);
}

void TrainingController::learning_rate_changed(double rate) {
    if (!active_ || stopping_ || rate == rate_) return;
    runner_->set_learning_rate(static_cast<float>(rate));
    const session::RunMarker marker{
        position_, "learning rate " + session::format_rate(rate_) + " → " + session::format_rate(rate)};
    recorder_->mark(marker);
    window_->dashboard()->curves()->add_marker(text_of(recorder_->record().id()), marker);
    rate_ = rate;
}

void TrainingController::pause() {
    if (active_) runner_->pause();
}
void TrainingController::resume() {
    if (active_) runner_->resume();
}
void TrainingController::step() {
    if (active_) runner_->step();
}
void TrainingController::stop() {
    if (!active_ || stopping_) return;
    stopping_ = true;
    window_->train_panel()->set_run_state(RunState::stopping);
    runner_->stop();
}

void TrainingController::finished(const session::JobResult& result) {
    recorder_->finished(result);
    window_->dashboard()->status()->show_finished(result);
    end_run();
}

void TrainingController::failed(const session::JobFailure& failure) {
    stuck_worker_ = stuck_worker_ || failure.worker_stuck;
    recorder_->failed(failure);
    window_->dashboard()->status()->show_failure(failure);
    if (failure.kind == session::FailureKind::project)
        if (auto* problems = window_->findChild<QDockWidget*>(ui::MainWindow::problems_dock_name)) problems->raise();
    end_run();
}

void TrainingController::end_run() {
    recorder_->set_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count());
    active_ = false;
    stopping_ = false;
    paused_ = false;
    write_record(false);
    window_->document()->set_locked({});
    window_->train_panel()->set_run_state(RunState::idle);
    window_->dashboard()->update_run(recorder_->record(), true);
    emit runEnded(recorder_->record());
    if (status_of_other_project_) window_->dashboard()->status()->reset();
    status_of_other_project_ = false;
    // A save during the run may have given the project a file: its runs move now. Another project
    // opened during the run (saved or not) shows its own runs now.
    if (shown_file_ != window_->document()->file() || shown_folder_ != runs_folder()) follow_project();
}

bool TrainingController::write_record(bool quietly) {
    try {
        recorder_->write();
        return true;
    } catch (const std::exception& error) {
        const QString message = text_of(error.what());
        if (quietly)
            window_->statusBar()->showMessage(tr("The run's record was not saved: %1").arg(message), status_message_ms);
        else
            window_->dashboard()->status()->show_message(
                tr("The run's record cannot be written"),
                message + tr(". Free some space or save the project in a folder you can write to."), Tone::error);
        return false;
    }
}

}  // namespace bps::app
