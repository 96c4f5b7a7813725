#pragma once
// What pressing Train does: the run behind the studio's Train panel and Training tab. It takes the
// project from the editor, makes the run's folder beside the project file (its receipt written at
// once, so even a crash leaves a trace), starts the engine job through a TrainingRunner, locks the
// network while the job runs, and hands every report to the dashboard: the stage and progress to
// the status line, points and markers to the curves, the receipt (device, split, figures, outcome)
// to the run list and to disk. The buttons only ask the runner; the stage reports confirm. Nothing
// here waits for the device.
//
// A project not saved yet keeps its runs in `unsaved_runs_root`, one folder per project, and they
// move beside the project file when it is first saved.
#include <QMetaType>
#include <QObject>
#include <QString>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include "engine/runs/run_record.h"
#include "engine/session/run_recorder.h"
#include "engine/session/training_job.h"

Q_DECLARE_METATYPE(bps::session::RunRecord)

namespace bps::ui {
class MainWindow;
}

namespace bps::app {

class TrainingRunner;

class TrainingController : public QObject {
    Q_OBJECT
public:
    TrainingController(ui::MainWindow* window, std::filesystem::path unsaved_runs_root, QObject* parent = nullptr);
    // A run still going is asked to stop; its receipt says the window closed during it.
    ~TrainingController() override;

    // Starts a run of the current project (what Train does); false, with the reason shown in the
    // dashboard, when it cannot start: a run is active, the network has problems, or the run's
    // folder cannot be written.
    bool train();
    // Starts a new run that goes on from the checkpoint of run `id` (its folder's checkpoint.h5):
    // to the end of that run's epochs, or, when it had finished them, for the project's epochs more.
    bool continue_run(const QString& id);
    // A new run from a checkpoint file (File > Resume Training from Checkpoint…), by the same rule.
    bool resume_from(const std::filesystem::path& checkpoint);
    bool running() const;
    // A run was ended by the watchdog, and its worker is still inside the driver.
    bool left_a_stuck_worker() const { return stuck_worker_; }
    // The Devices tab's Clear Kernel Cache: the kernel cache and the drivers' caches beside it,
    // refused while a run uses them.
    void clear_kernel_caches();
    // The Devices tab's Use Again: the skipped device with this index is used again.
    void enable_device(int device_index);
    TrainingRunner* runner() const { return runner_; }
    // The folder the current project's runs are kept in.
    std::filesystem::path runs_folder() const;
    // The run in progress, or the last one, as it is on disk.
    const session::RunRecord& record() const;

    // Tests: change the job's setup before it starts (a report for every batch, data in memory).
    std::function<void(session::JobSetup&)> adjust_setup;

signals:
    // The run's receipt was written with its outcome (also after a failure).
    void runEnded(const bps::session::RunRecord& record);

private:
    void stage(const session::StageReport& stage);
    void started(const session::RunFacts& facts);
    void batch(const session::BatchReport& report);
    void epoch(const session::EpochReport& report);
    void finished(const session::JobResult& result);
    void failed(const session::JobFailure& failure);
    void learning_rate_changed(double rate);
    void pause();
    void resume();
    void step();
    void stop();
    // The project changed its file (Open, New, Save As): the dashboard shows that project's runs.
    void follow_project();
    // File ▸ Recover Unsaved Runs…: the unsaved project kept in `folder` opened again, with its runs.
    bool reopen_unsaved(const std::filesystem::path& folder);
    void end_run();
    // A run continued from a checkpoint: where from, to how many epochs, and the run it continues.
    // A run that goes on from a checkpoint (its weights, optimiser state and position), or that
    // starts from the weights of a weights file (`weights` set; the rest unused).
    struct Continuation {
        std::filesystem::path checkpoint;
        std::filesystem::path weights;
        int epochs = 0;
        float learning_rate = 0;
        std::string from_name;
    };
    bool start_run(const std::optional<Continuation>& continuation);
    bool resume_from(const std::filesystem::path& checkpoint, const std::string& from_name);
    bool write_record(bool quietly);
    std::string next_run_name() const;
    void refuse(const QString& headline, const QString& details);

    ui::MainWindow* window_;
    TrainingRunner* runner_;
    std::filesystem::path unsaved_runs_root_;
    std::filesystem::path unsaved_folder_;  // this unsaved project's runs, once it has one
    std::filesystem::path shown_folder_;    // the runs folder the dashboard lists
    std::filesystem::path shown_file_;      // the project file it belongs to
    // The run in progress (or the last one): its folder, receipt, curves and evaluation.
    std::optional<session::RunRecorder> recorder_;
    bool active_ = false;
    bool stuck_worker_ = false;
    bool stopping_ = false;
    bool paused_ = false;
    double position_ = 0;  // the latest report's, in epochs: where markers go
    double rate_ = 0;      // the learning rate the run uses now (before its schedule)
    std::chrono::steady_clock::time_point started_at_;
    // Another project was opened during the run: the status shows nothing of it once it ends.
    bool status_of_other_project_ = false;
};

}  // namespace bps::app
