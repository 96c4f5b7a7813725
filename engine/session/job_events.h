#pragma once
// What a training job tells its listeners (stages, facts, results, failures: JobEvents) and the
// choices a job passes down to its worker (OnDivergence, DataPlacement). The door
// (session/training_job.h) and the worker (session/worker/training_run.h) both include this
// header, so the worker never includes the door.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/runs/model_card.h"
#include "engine/runs/reports.h"
#include "engine/session/inside_snapshot.h"
#include "engine/session/sample_evaluation.h"

namespace bps::session {

enum class JobTask { train, evaluate };

// What a divergence does (JobSetup::on_divergence says when): stop fails the job, pause pauses it.
enum class OnDivergence { stop, pause };

// Where a training job assembles its batches (JobSetup::data_placement says how it chooses).
enum class DataPlacement { automatic, host, device };

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
    bool stopped = false;  // stop() ended it early (it may still hold trained weights)
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

}  // namespace bps::session
