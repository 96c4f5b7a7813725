#pragma once
// A training run on its own worker thread. The thread creates and owns the OpenCL runtime (context,
// queue, programs) and the network, feeds batches, and reports through callbacks; other threads
// steer it with pause, resume, stop and a new learning rate, all honoured at the next batch
// boundary. Whether the run ends after all epochs or on a stop, the weights trained so far come
// back to the host in the finish report, so nothing trained is lost.
//
// The callbacks run on the worker thread: a GUI forwards them through queued signals, the CLI
// prints. Reports are deterministic: the same project, seed, device and data give the same
// sequence of losses.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/cl/device.h"
#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/session/evaluation.h"
#include "engine/session/training_data.h"

namespace bps::session {

struct SessionSetup {
    project::Project project;  // the network (input shape is taken from the data) and training settings
    cl::DeviceInfo device;
    std::filesystem::path kernel_cache_dir;  // empty: compile without the persistent cache
    std::shared_ptr<const TrainingData> data;
    std::vector<io::NamedArray> initial_weights;  // empty: initialise from the project's seed
    std::size_t report_every = 10;                // batches between batch reports; an epoch's last batch always reports
    bool evaluate_test = true;                    // evaluate the test split after the last epoch
};

struct BatchReport {
    int epoch = 0;  // 0-based
    int epochs = 0;
    std::size_t batch = 0;  // batches done in this epoch, 1-based
    std::size_t batches = 0;
    double loss = 0;      // mean over this epoch's samples so far
    double accuracy = 0;  // the same
    double images_per_second = 0;
    double epoch_seconds = 0;  // since the epoch began
    float learning_rate = 0;
};

struct EpochReport {
    int epoch = 0;
    int epochs = 0;
    double train_loss = 0, train_accuracy = 0;
    std::optional<Evaluation> validation;
    double seconds = 0;  // training only, validation excluded
    double images_per_second = 0;
};

struct FinishReport {
    bool stopped = false;      // stop() ended it early
    int epochs_completed = 0;  // whole epochs
    std::optional<Evaluation> test;
    std::vector<io::NamedArray> weights;  // everything trained, also after a stop
    double seconds = 0;
};

struct SessionEvents {
    std::function<void(const BatchReport&)> batch_done;
    std::function<void(const EpochReport&)> epoch_done;
    std::function<void(const FinishReport&)> finished;
    std::function<void(const std::string&)> failed;  // the error's message; no finished event follows
};

class TrainingSession {
public:
    // Starts the worker thread at once.
    TrainingSession(SessionSetup setup, SessionEvents events);
    // Stops at the next batch boundary and waits for the thread.
    ~TrainingSession();
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    void pause();
    void resume();
    void stop();
    // The new base rate; the project's schedule goes on from it.
    void set_learning_rate(float rate);

    // True once the finished or failed event has been delivered.
    bool wait_for(std::chrono::milliseconds timeout);
    void wait();

private:
    void run();
    void train();
    // Blocks while paused; false when a stop was asked for.
    bool keep_going();

    SessionSetup setup_;
    SessionEvents events_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool paused_ = false;
    bool stop_requested_ = false;
    bool done_ = false;
    float base_rate_ = 0;
    std::thread worker_;
};

}  // namespace bps::session
