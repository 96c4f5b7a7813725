#pragma once
// The one door to training and evaluation, for the CLI and the studio alike (looking inside a
// trained network, predicting included, is session/predictor.h's). A job
// takes a project, a device request and options, and does the whole of the work on its own
// worker thread: it chooses the device, reads and prepares the data, builds the kernels, trains,
// evaluates the test split and saves the weights with their model card. Its caller only asks
// (pause, resume, step, stop, a new learning rate; never blocking) and listens. Nothing here
// reaches an OpenCL header or the ops runtime.
//
// How the studio drives a run (app/gui/training_controller.cpp), with nothing from cl/ or ops/. The
// job's events come on its worker thread; app/gui's TrainingRunner forwards them through the one
// worker bridge as signals on the UI thread (at most ~30 batch reports a second), so widgets only
// see values:
//
//     session::JobSetup setup;
//     setup.project = project;                                            // the network and its training settings
//     setup.device_request = train_panel->device_request().toStdString(); // "" for the best device
//     setup.save_weights = recorder->weights_file();                      // checked before any image is read
//     setup.on_divergence = session::OnDivergence::pause;                 // the learner lowers the rate and resumes
//     runner_ = new TrainingRunner(this);                                 // app/gui/training_runner.h
//     connect(runner_, &TrainingRunner::stageChanged, this, &TrainingController::stage);    // "building kernels 3/11"
//     connect(runner_, &TrainingRunner::runStarted, this, &TrainingController::started);    // device, image counts
//     connect(runner_, &TrainingRunner::batchReported, this, &TrainingController::batch);   // loss, accuracy, images/s
//     connect(runner_, &TrainingRunner::epochReported, this, &TrainingController::epoch);   // with validation
//     connect(runner_, &TrainingRunner::finished, this, &TrainingController::finished);     // test figures, weights
//     connect(runner_, &TrainingRunner::failed, this, &TrainingController::failed);         // kind, message, layer
//     runner_->start(std::move(setup));
//     // The Train panel's buttons only ask; the stage signals confirm (paused, running, finished):
//     connect(panel, &ui::TrainPanel::pauseRequested, this, &TrainingController::pause);   // runner_->pause()
//     connect(panel, &ui::TrainPanel::stepRequested, this, &TrainingController::step);     // runner_->step()
//     connect(panel, &ui::TrainPanel::resumeRequested, this, &TrainingController::resume); // runner_->resume()
//     connect(panel, &ui::TrainPanel::stopRequested, this, &TrainingController::stop);     // runner_->stop()
//     runner_->set_learning_rate(0.003f);  // from the next batch
//     // Closing the window deletes the runner: it asks the job to stop and never waits on the device.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/session/job_events.h"
#include "engine/session/training_data.h"

namespace bps::session {

struct JobSetup {
    JobTask task = JobTask::train;
    project::Project project;
    std::string source;          // how messages name the project: its file, or "example 'cnn'"
    std::string device_request;  // "" for the best device, an index or part of a name
    // Overrides of the project's training settings for this run.
    std::optional<int> epochs;
    std::optional<int> batch_size;
    std::optional<float> learning_rate;
    std::optional<std::uint64_t> seed;
    // train: stop after this many training steps, then evaluate as at the end (a quick check
    // that training works, such as an installer's smoke test). Nothing: train every epoch.
    std::optional<std::size_t> batch_limit;
    // train: a run stopped by stop() after training began still evaluates the weights it has on
    // the test split (JobResult::test), so a stopped run gets a test accuracy too. Off: a stop
    // ends at once (the CLI's Ctrl+C).
    bool test_when_stopped = false;
    // train: weights to start from (optional); evaluate: the weights to use (required).
    std::filesystem::path weights;
    // train: where the weights and their model card are saved when training ends, also after a
    // stop (empty: not saved). Checked before any image is read.
    std::filesystem::path save_weights;
    // train: a checkpoint to go on from (session/checkpoint.h). The run takes the checkpoint's
    // project (the overrides above still apply), weights, optimiser state and position.
    std::filesystem::path resume_from;
    // train: where a checkpoint is written after every epoch and when the run is stopped (empty:
    // none). Checked before any image is read, like save_weights.
    std::filesystem::path checkpoint;
    // The project's own file, if it has one: no weights or checkpoint may be written over it.
    std::filesystem::path project_file;
    // Data already in memory (tests, a dataset the studio has loaded); null: the job reads the
    // project's dataset itself.
    std::shared_ptr<const TrainingData> data;
    // Batch reports come at most this often, and at the end of every epoch. Zero reports every
    // batch, waiting for the device each time (tests, stepping by hand).
    std::chrono::milliseconds report_interval{33};
    // What a divergence does: a training loss that is NaN, infinite or exploding (far above the
    // first epoch's, session/loss_watch.h), a NaN or infinite validation loss, or parameters that
    // are not finite (checked on the device every epoch, before any checkpoint). Either way the
    // network goes back to the last weights known to be finite (with the optimiser's state), and
    // no report with such a loss is sent. stop: the job fails (FailureKind::diverged) and saves
    // those weights, for the CLI, where nobody could resume; pause: the run pauses with the advice
    // in its paused stage report, for the studio, where the learner lowers the rate and resumes,
    // or stops.
    OnDivergence on_divergence = OnDivergence::stop;
    // train: where batches are assembled. automatic keeps an unaugmented training set on a GPU
    // or accelerator when it takes at most a quarter of its memory, and gathers every batch
    // there (session/device_training_set.h); host assembles them on the host; device keeps the
    // set on any device it fits (tests run the device path on a CPU this way). Same results.
    DataPlacement data_placement = DataPlacement::automatic;
    // train: once training has begun, a device that finishes no batch for this long (a kernel
    // that never ends, a driver that stopped answering) fails the job with FailureKind::device.
    // The worker stays behind in the driver's call and sends nothing more. The first batch, which
    // may compile the GEMM kernels, gets ten times as long. Zero: no watchdog.
    std::chrono::milliseconds watchdog_limit{std::chrono::seconds(60)};
    // train: the run's folder, where what the Inside view replays is written after every epoch
    // (session/epoch_replay.h; epoch 0 before the first batch of a run that is not resumed).
    // Empty: no replay. A replay that cannot be written is said in a note; training goes on.
    std::filesystem::path replay_folder;
    // train: live snapshots for the Inside view (JobEvents::inside) at most this often; zero: none
    // until TrainingJob::set_inside_interval asks for them. Read between batches without waiting.
    std::chrono::milliseconds inside_interval{0};
};

class TrainingJob {
public:
    // Starts the worker thread at once; every problem, even a project that cannot work, arrives
    // as the failed event.
    TrainingJob(JobSetup setup, JobEvents events);
    // Asks for a stop and waits a moment for the worker; a worker still busy on the device then
    // finishes on its own, sending no more events.
    ~TrainingJob();
    TrainingJob(const TrainingJob&) = delete;
    TrainingJob& operator=(const TrainingJob&) = delete;

    // Any thread, any order, never blocking; honoured at the next batch boundary (stop also
    // while preparing). Resume with nothing paused does nothing; step runs exactly one batch of
    // a paused run; stop while paused stops.
    void pause();
    void resume();
    void step();
    void stop();
    void set_learning_rate(float rate);  // the new base rate; the project's schedule goes on from it
    // Live snapshots at most this often from the next batch on (zero: none); any thread, never
    // blocking. The Inside view asks while it is shown.
    void set_inside_interval(std::chrono::milliseconds interval);

    // True once finished or failed has been delivered (false when the timeout passed first).
    bool wait_for(std::chrono::milliseconds timeout) const;
    // True once the worker thread has nothing left to do. After the watchdog ended a job, the
    // worker is stuck in the driver until the device answers, which may be never.
    bool wait_for_worker(std::chrono::milliseconds timeout) const;

    struct State;

private:
    std::shared_ptr<State> state_;
};

}  // namespace bps::session
