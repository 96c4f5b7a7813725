#pragma once
// The one door to training and evaluation, for the CLI and the studio alike (looking inside a
// trained network, predicting included, is session/predictor.h's). A job
// takes a project, a device request and options, and does the whole of the work on its own
// worker thread: it chooses the device, reads and prepares the data, builds the kernels, trains,
// evaluates the test split and saves the weights with their model card. Its caller only asks
// (pause, resume, step, stop, a new learning rate; never blocking) and listens. Nothing here
// reaches an OpenCL header or the ops runtime.
//
// How the studio's dashboard drives a run, with nothing from cl/ or ops/. The job's events come on
// its worker thread; app/gui's TrainingRunner forwards them through the one worker bridge as
// signals on the UI thread (at most ~30 batch reports a second), so widgets only see values:
//
//     session::JobSetup setup;
//     setup.project = editor->project();              // the network and its training settings
//     setup.device_request = train_panel->device_request();  // "" for the best device
//     setup.save_weights = run_folder / "weights.h5"; // checked before any image is read
//     auto* runner = new app::TrainingRunner(this);
//     connect(runner, &app::TrainingRunner::stageChanged, status, &RunStatus::show_stage);  // "building kernels 3/11"
//     connect(runner, &app::TrainingRunner::runStarted, status, &RunStatus::show_facts);    // device, image counts
//     connect(runner, &app::TrainingRunner::batchReported, curves, &Curves::add_batch);     // loss, accuracy, images/s
//     connect(runner, &app::TrainingRunner::epochReported, curves, &Curves::add_epoch);     // with validation
//     connect(runner, &app::TrainingRunner::finished, runs, &RunList::add_result);          // test figures, weights
//     connect(runner, &app::TrainingRunner::failed, problems, &Problems::show_failure);     // kind, message, layer
//     runner->start(std::move(setup));
//     // The buttons only ask; the stage signals confirm (paused, running, finished):
//     connect(pause_button, &QPushButton::clicked, runner, &app::TrainingRunner::pause);
//     connect(step_button, &QPushButton::clicked, runner, &app::TrainingRunner::step);
//     connect(resume_button, &QPushButton::clicked, runner, &app::TrainingRunner::resume);
//     connect(stop_button, &QPushButton::clicked, runner, &app::TrainingRunner::stop);
//     runner->set_learning_rate(0.003f);  // from the next batch
//     // Closing the window deletes the runner: it asks the job to stop and never waits on the device.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/session/inside_snapshot.h"
#include "engine/session/model_card.h"
#include "engine/session/reports.h"
#include "engine/session/sample_evaluation.h"
#include "engine/session/training_data.h"

namespace bps::session {

enum class JobTask { train, evaluate };

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
    enum class OnDivergence { stop, pause };
    OnDivergence on_divergence = OnDivergence::stop;
    // train: where batches are assembled. automatic keeps an unaugmented training set on a GPU
    // or accelerator when it takes at most a quarter of its memory, and gathers every batch
    // there (session/device_training_set.h); host assembles them on the host; device keeps the
    // set on any device it fits (tests run the device path on a CPU this way). Same results.
    enum class DataPlacement { automatic, host, device };
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

enum class Stage { preparing, running, paused, evaluating, finished, failed };
const char* stage_name(Stage stage);  // "preparing", "running", ...

struct StageReport {
    Stage stage = Stage::preparing;
    // preparing: "choosing a device", "reading Fashion-MNIST", "building kernels", "building the
    // network"; evaluating: "validation images" or "test images"; paused after a divergence: the
    // advice (see JobSetup::on_divergence); otherwise empty.
    std::string activity;
    std::size_t done = 0, total = 0;  // a counted activity (kernels 3 of 11, files 2 of 4); total 0: not counted
};

// What the run is about to do, sent once preparation is over and before the first batch.
struct RunFacts {
    std::string name;        // the project's name, or its source
    std::string data_title;  // "Fashion-MNIST", or the image folder
    device::DeviceDescription device;
    project::TrainingSettings training;  // with this run's overrides
    std::size_t train_images = 0, validation_images = 0, test_images = 0;
    std::vector<std::string> skipped_images;  // an image folder's unreadable files, with why
    std::vector<std::string> class_names;
    // What the run's weights files will say about their images (a live look inside the run
    // needs it before the first file is written).
    ModelCard card;
};

struct JobResult {
    JobTask task = JobTask::train;
    bool stopped = false;         // stop() ended it early (it may still hold trained weights)
    // stop() ended it in this epoch (0-based) and after this many of its batches: where the kept
    // weights come from (JobSetup::test_when_stopped evaluates them).
    int stopped_in_epoch = 0;
    std::size_t stopped_after_batches = 0;
    bool training_began = false;  // false when it stopped while preparing: nothing was trained or saved
    // The training diverged (the advice; see JobSetup::on_divergence), and the run went back to the
    // last weights known to be finite: `weights` are those, taken after `kept_after_batches` batches of this run.
    // Empty when it trained on from there (after a pause) without diverging again.
    std::string diverged;
    // Also set when a failing step had updated only part of the weights (JobFailure then says so).
    std::optional<std::size_t> kept_after_batches;
    int epochs_completed = 0;          // whole epochs
    std::size_t batches_trained = 0;   // train: steps taken by this run (not those of a resumed one)
    bool batch_limit_reached = false;  // train: JobSetup::batch_limit ended it (not a stop)
    std::optional<Evaluation> test;    // train: the test split after the last epoch; evaluate: the result
    // The same image by image, with its confusion matrix (a classifier's; absent for a network
    // trained on targets).
    std::optional<SampleEvaluation> test_samples;
    bool whole_folder = false;  // evaluate: an image folder has no test split, all its images were used
    std::vector<std::string> class_names;
    std::vector<io::NamedArray> weights;        // train: everything trained, also after a stop
    std::filesystem::path saved_to;             // train: the weights file written, if any
    std::filesystem::path checkpoint_saved_to;  // train: the checkpoint written last, if any
    double seconds = 0;
};

enum class FailureKind {
    project,               // the project file or its network (`layer` names the layer when one is at fault)
    data,                  // the dataset is missing or damaged (`file` names it)
    file,                  // a weights file cannot be read, does not fit, or cannot be saved (`file`)
    no_device,             // no OpenCL platform at all: `message` says how to install one
    device,                // the device cannot be found or failed
    out_of_device_memory,  // the network or batch does not fit the device's memory
    diverged,              // the training diverged (JobSetup::on_divergence, OnDivergence::stop)
    internal,              // anything else
};
const char* failure_kind_name(FailureKind kind);

struct JobFailure {
    FailureKind kind = FailureKind::internal;
    std::string message;  // complete, in a learner's words, naming the file, layer or device
    std::string layer;
    std::string file;
    // A failure during training keeps what it can: the weights as they were after the last batch
    // that completed (when the device could still give them back), saved to JobSetup::save_weights
    // when that was asked for.
    int epochs_completed = 0;
    std::vector<io::NamedArray> weights;
    std::filesystem::path saved_to;
    // The watchdog ended the job (JobSetup::watchdog_limit): the worker is still inside a driver
    // call, perhaps for good, so a program that ends now should not wait for it.
    bool worker_stuck = false;
};

// Every event runs on the job's worker thread, one at a time. A callback must return quickly and
// touch only what outlives the job (a bridge, a queue); after the job is destroyed no new event
// starts. Exactly one of finished and failed ends every job.
struct JobEvents {
    std::function<void(const StageReport&)> stage;
    std::function<void(const RunFacts&)> started;
    std::function<void(const BatchReport&)> batch;
    std::function<void(const EpochReport&)> epoch;
    // Something the learner should know that does not stop the job: a damaged kernel cache that
    // was cleared or rebuilt (the line names the cache and the device).
    std::function<void(const std::string&)> note;
    std::function<void(const JobResult&)> finished;
    std::function<void(const JobFailure&)> failed;
    // A live snapshot of the weights and gradients (JobSetup::inside_interval), shared so that a
    // bridge forwards it without copying megabytes.
    std::function<void(std::shared_ptr<const InsideSnapshot>)> inside;
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
