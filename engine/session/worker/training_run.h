#pragma once
// Inside a training job, on its worker thread: the network built on the job's runtime, the epochs
// and batches, the metric reports on a timer (read back asynchronously, so the device never
// waits for the host), validation and the test evaluation. Device code: only the job includes it.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/runs/checkpoint.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/job_events.h"
#include "engine/session/run_control.h"
#include "engine/session/training_data.h"
#include "engine/session/worker/last_finite_weights.h"

namespace bps::session {

class DeviceTrainingSet;
class Watchdog;

struct TrainingRun {
    ops::Runtime& runtime;
    const project::Project& project;  // with the run's overrides
    const TrainingData& data;
    RunControl& control;
    const JobEvents& events;
    const std::atomic<bool>& detached;  // no events once the job object is gone
    std::chrono::milliseconds report_interval;
    std::vector<io::NamedArray> starting_weights;  // empty: initialise from the project's seed
    std::filesystem::path starting_file{};         // where they came from, named when they are not finite
    OnDivergence on_divergence = OnDivergence::stop;
    // Resuming: where the run goes on from (nothing: from the start) and the optimiser's state.
    std::optional<CheckpointPosition> resume_at{};
    std::vector<io::NamedArray> resume_optimizer_state{};
    std::filesystem::path resume_file{};  // the checkpoint, named in a message about its state
    // Written after every epoch and when the run stops (empty: none), carrying `card`.
    std::filesystem::path checkpoint{};
    ModelCard card{};
    // JobSetup::replay_folder (empty: no replay), and the live snapshots' interval in milliseconds
    // (TrainingJob::set_inside_interval changes it from any thread; nullptr: none).
    std::filesystem::path replay_folder{};
    const std::atomic<long long>* inside_interval_ms = nullptr;
    std::optional<std::size_t> batch_limit{};  // JobSetup::batch_limit
    bool test_when_stopped = false;            // JobSetup::test_when_stopped
    DataPlacement data_placement = DataPlacement::automatic;
    // From the first batch on, a device that finishes nothing for this long is reported through
    // `hung` (on the watchdog's thread, with the batches trained so far and the last weights
    // kept on the host, which the hung device can no longer give back); zero: no watchdog.
    std::chrono::milliseconds watchdog_limit{0};
    std::function<void(std::chrono::milliseconds, std::size_t, KeptWeights)> hung{};
    // Set once `hung` has ended the job: a worker the device lets go on afterwards writes no
    // checkpoint, so the files stay what the job's failure said (nullptr: never).
    const std::atomic<bool>* ended_by_watchdog = nullptr;

    // Not for the job to set: the parameters the last checkpoint saved, with the update count and
    // the batches trained when it was written. When nothing has changed them since, they are the
    // run's result, so the end of a run does not download the same parameters a second time.
    struct CheckpointedParameters {
        std::vector<io::NamedArray> weights;
        int updates = 0;
        std::size_t batches_trained = 0;
    };
    std::optional<CheckpointedParameters> checkpointed{};

    // Trains to the end or to a stop; fills the result's training fields and weights. When the
    // device fails part-way, the result keeps the weights it could still read back, and the
    // error goes on to the job.
    void train(JobResult& result);

private:
    void run_epochs(model::Network& network, DeviceTrainingSet* device_set, LastFiniteWeights& kept, Watchdog* watchdog,
                    JobResult& result);
    void write_checkpoint(model::Network& network, const CheckpointPosition& position, JobResult& result);
    void restore_optimizer_state(model::Network& network);
    // Writes the replay of `epoch` into replay_folder; a failure is a note, and training goes on.
    void keep_replay(int epoch, const std::vector<io::NamedArray>& weights,
                     const std::vector<io::NamedArray>& gradients);
};

// The training diverged (a loss or weights that are not numbers, or an exploding loss: see
// session/loss_watch.h) and the job stops (OnDivergence::stop).
class DivergenceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What to tell the learner when the training diverged: what happened ("the loss became NaN (not a
// number)"), where ("in epoch 2, batch 14"), at what rate, and what to try.
std::string divergence_advice(const std::string& what, const std::string& where, float learning_rate);

// The project's network for `shape` images on `runtime`, holding the saved weights.
std::unique_ptr<model::Network> network_with_weights(ops::Runtime& runtime, const project::Project& project,
                                                     const datasets::ImageShape& shape, int batch_size,
                                                     const SavedWeights& weights);

}  // namespace bps::session
