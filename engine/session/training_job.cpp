// The job's worker: preparation in the order that fails fastest (the save destination, the
// project against its data's shape, the device, the weights, then the images), the run itself in
// engine/session/worker/training_run.cpp, and every exception turned into one structured failure.
#include "engine/session/training_job.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "datasets/dataset.h"
#include "datasets/image_folder.h"
#include "engine/base/number_text.h"
#include "engine/bench/self_test.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/error.h"
#include "engine/device/self_test_record.h"
#include "engine/io/network_weights.h"
#include "engine/model/graph_analysis.h"
#include "engine/model/graph_report.h"
#include "engine/model/network.h"
#include "engine/ops/device_for_work.h"
#include "engine/ops/runtime.h"
#include "engine/project/project_data.h"
#include "engine/runs/checkpoint.h"
#include "engine/runs/model_card.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/rescue_file.h"
#include "engine/session/run_control.h"
#include "engine/session/worker/evaluation.h"
#include "engine/session/worker/training_run.h"
#include "engine/train/optimizer_settings.h"

namespace bps::session {

struct TrainingJob::State {
    JobSetup setup;
    JobEvents events;
    RunControl control;
    // The job object is gone, or the watchdog ended the job: send nothing more.
    std::atomic<bool> detached = false;
    // The watchdog ended the job and saved what it could: a worker let go on later saves nothing.
    std::atomic<bool> ended_by_watchdog = false;
    // JobSetup::inside_interval in milliseconds, changed by set_inside_interval from any thread.
    std::atomic<long long> inside_interval_ms = 0;
    // Events come one at a time: from the worker, and once from the watchdog's thread.
    mutable std::mutex events_mutex;
    mutable std::mutex mutex;
    mutable std::condition_variable ended_changed;
    bool ended = false;
    bool worker_done = false;
    // The device, marked in use while the job uses it so that a crash inside the driver clears its
    // caches next time. Under `mutex`: the watchdog removes the mark, since a stuck job's process
    // then ends on purpose, not by a crash.
    std::unique_ptr<device::DeviceForWork> at_work;
    // What a generic exception means depends on what the worker was doing when it came.
    FailureKind phase = FailureKind::internal;
    std::string device_name;
    // Another device to offer when this one fails: "the CPU device 'NAME' (device 1)"; empty when
    // the failing device is the only CPU or there is none.
    std::string cpu_offer;
    std::uint64_t device_memory = 0, device_max_allocation = 0;
    std::size_t network_bytes = 0;  // an estimate of what the run needs on the device, 0: unknown
    JobResult result;
    // What every weights file of the run says about its images (the trained weights, checkpoints,
    // and those kept after a failure): settled before training begins.
    ModelCard kept_card;

    template <typename Event, typename... Args>
    void send(const Event& event, const Args&... args) const {
        std::lock_guard lock(events_mutex);
        if (event && !detached) event(args...);
    }
    // The job's events for the run, through send(): one at a time, none after the watchdog's.
    JobEvents guarded_events() const {
        JobEvents guarded;
        guarded.stage = [this](const StageReport& report) { send(events.stage, report); };
        guarded.started = [this](const RunFacts& facts) { send(events.started, facts); };
        guarded.batch = [this](const BatchReport& report) { send(events.batch, report); };
        guarded.epoch = [this](const EpochReport& report) { send(events.epoch, report); };
        guarded.note = [this](const std::string& note) { send(events.note, note); };
        if (events.inside)
            guarded.inside = [this](std::shared_ptr<const InsideSnapshot> snapshot) { send(events.inside, snapshot); };
        return guarded;
    }
    void device_hung(std::chrono::milliseconds quiet, std::size_t batches, KeptWeights kept);
    void stage(Stage stage, std::string activity = {}, std::size_t done = 0, std::size_t total = 0) const {
        send(events.stage, StageReport{stage, std::move(activity), done, total});
    }

    void finish(const JobResult& result) const {
        stage(Stage::finished);
        send(events.finished, result);
    }
    void run() noexcept;
    void work();
    struct Prepared;
    bool prepare(Prepared& prepared);
    std::optional<datasets::DatasetSplits> read_data(const Prepared& prepared, std::vector<std::string>& skipped);
    void evaluate_weights(Prepared& prepared);
    void train(Prepared& prepared);
    JobFailure failure_of(std::exception_ptr error) const;
    std::string device_failure_message(const cl::ClError& error) const;
    void keep_weights(JobFailure& failure) const noexcept;
    void save_failure_weights(JobFailure& failure, std::vector<io::NamedArray> weights, std::size_t batches,
                              const char* which) const noexcept;
    std::string out_of_memory_message(const std::string& error) const;
    void check_device_results(const cl::DeviceInfo& device, ops::Runtime& runtime) const;
};

namespace {

bool out_of_memory_status(cl_int status) {
    return status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
           status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE;
}

// A network that cannot work with this data: the message names the source, `layer` the node at fault.
class NetworkProblem : public project::ProjectError {
public:
    NetworkProblem(const std::string& source, const std::string& problem, std::string layer)
        : ProjectError(source, problem), layer(std::move(layer)) {}
    std::string layer;
};

// The project's graph against the data's shape and classes, through the editor's graph report,
// whose first problem is the one `backprop summary` shows.
// Returns an estimate of the device memory the run needs: the parameters with their gradients
// and optimiser state, and the activations of a batch with their gradients.
std::size_t check_network(const JobSetup& setup, const DataFacts& facts) {
    const model::GraphReport report =
        project::project_report(setup.project, facts.shape, static_cast<int>(facts.class_count));
    if (report.ok()) {
        std::size_t parameters = 0, activation_bytes = 0;
        for (const model::NodeReport& node : report.nodes) {
            parameters += node.parameters;
            activation_bytes += node.activation_bytes;
        }
        const auto copies =
            static_cast<std::size_t>(2 + train::optimizer_state_count(setup.project.training.optimizer));
        return parameters * sizeof(float) * copies +
               activation_bytes * static_cast<std::size_t>(setup.project.training.batch_size) * 2;
    }
    const model::GraphProblem& first = report.problems.front();
    const std::string layer =
        first.node ? setup.project.network.layers[static_cast<std::size_t>(*first.node)].name : std::string();
    throw NetworkProblem(setup.source.empty() ? std::string("the project") : setup.source, first.message, layer);
}

JobFailure failure(FailureKind kind, std::string message, std::string layer = {}, std::string file = {}) {
    JobFailure made;
    made.kind = kind;
    made.message = std::move(message);
    made.layer = std::move(layer);
    made.file = std::move(file);
    return made;
}

// Weights written over the project file would replace the learner's network with HDF5.
void refuse_the_project_file(const std::filesystem::path& destination, const std::filesystem::path& project_file) {
    std::error_code error;
    if (project_file.empty() || !std::filesystem::equivalent(destination, project_file, error)) return;
    throw io::WeightsFileError(destination, "is the project file itself; save the weights under another name, e.g. " +
                                                project_file.stem().string() + ".h5");
}

DataFacts facts_of(const TrainingData& data) {
    return DataFacts{data.train.name, data.train.shape, data.train.class_count()};
}

}  // namespace

// Before a device's first training (with this driver and these kernels) its self-test runs: a
// device that computes wrong results stops the job here, with the figures, and is not the
// default from then on. One known to be wrong and chosen by name trains with a warning.
void TrainingJob::State::check_device_results(const cl::DeviceInfo& device, ops::Runtime& runtime) const {
    device::test_before_first_use(
        device, runtime, [this](const std::string& note) { send(events.note, note); },
        [this] { stage(Stage::preparing, "testing the device before its first training"); });
}

JobFailure TrainingJob::State::failure_of(std::exception_ptr error) const {
    JobFailure failed;
    failed.kind = phase;
    try {
        std::rethrow_exception(error);
    } catch (const NetworkProblem& e) {
        failed = failure(FailureKind::project, e.what(), e.layer, e.source());
    } catch (const project::ProjectError& e) {
        failed = failure(FailureKind::project, e.what(), {}, e.source());
    } catch (const model::ModelError& e) {
        // Found while building the network on the device: the project is named, as check_network does.
        const std::string source = setup.source.empty() ? std::string("the project") : setup.source;
        failed = failure(FailureKind::project, source + ": " + e.what(), {}, setup.source);
    } catch (const datasets::DatasetError& e) {
        failed = failure(FailureKind::data, e.what(), {}, e.file().string());
    } catch (const io::WeightsFileError& e) {
        failed = failure(FailureKind::file, e.what(), {}, e.file().string());
    } catch (const device::NoDeviceError& e) {
        failed = failure(FailureKind::no_device, e.what(), {}, {});
    } catch (const cl::ClError& e) {
        // CL_OUT_OF_RESOURCES is how some drivers say a buffer does not fit; a launch that fails
        // with it after the network has already trained is the device failing, not the memory.
        const bool memory =
            out_of_memory_status(e.status()) &&
            (e.status() != CL_OUT_OF_RESOURCES || !result.training_began || e.call() == "clCreateBuffer");
        if (memory)
            failed = failure(FailureKind::out_of_device_memory, out_of_memory_message(e.what()));
        else
            failed = failure(FailureKind::device, device_failure_message(e), {}, {});
    } catch (const std::bad_alloc&) {
        failed = failure(FailureKind::out_of_device_memory, "out of memory while preparing the run", {}, {});
    } catch (const DivergenceError& e) {
        failed = failure(FailureKind::diverged, e.what());
    } catch (const std::exception& e) {
        failed.message = e.what();
    } catch (...) {
        failed.message = "the job stopped on an unknown error";
    }
    return failed;
}

// A device that failed, in plain words: when (how far training got), what the driver said, and
// what to do. A failure during training stops at the batch it hit (keep_weights adds what was kept).
std::string TrainingJob::State::device_failure_message(const cl::ClError& error) const {
    const std::string device = device_name.empty() ? std::string("the device") : "the device '" + device_name + "'";
    std::string message;
    if (result.training_began) {
        const std::size_t batches = result.batches_trained;
        message = device + " failed during training, after " + std::to_string(batches) +
                  (batches == 1 ? " batch" : " batches") + " of this run";
    } else {
        message = device + " failed while the run was being prepared";
    }
    message += " (";
    message += error.what();
    message += ")";
    if (!cpu_offer.empty())
        message += "; " + cpu_offer + " can train instead, more slowly: choose it with --device or in the Train panel";
    else
        message += "; try again, and update the device's driver if it keeps failing";
    return message;
}

// The watchdog's end of a job whose device stopped finishing work: on the watchdog's thread,
// while the worker waits inside the driver. The failure goes out at once and ends the job; the
// worker, should the device ever answer again, stops at its next batch and sends nothing more.
void TrainingJob::State::device_hung(std::chrono::milliseconds quiet, std::size_t batches, KeptWeights kept) {
    // First, so that a worker the device lets go on at this moment saves nothing over what this saves.
    ended_by_watchdog = true;
    control.stop();
    const std::string device = device_name.empty() ? std::string("the device") : "the device '" + device_name + "'";
    JobFailure hung;
    hung.kind = FailureKind::device;
    hung.worker_stuck = true;
    hung.message = device + " stopped responding during training: it finished no work for " +
                   format_duration(static_cast<double>(quiet.count()) / 1000.0) + ", after " + std::to_string(batches) +
                   (batches == 1 ? " batch" : " batches") +
                   " of this run (a kernel that never ends, or a driver that stopped answering), so the run was "
                   "ended";
    if (!cpu_offer.empty())
        hung.message += "; " + cpu_offer + " can train instead: choose it with --device or in the Train panel";
    else
        hung.message += "; restart the program and update the device's driver if it happens again";
    // The device cannot give its weights back any more: the last copy kept on the host is saved.
    // `setup` and `kept_card` are settled before training begins, so this thread may read them.
    if (!kept.weights.empty())
        save_failure_weights(hung, std::move(kept.weights), kept.batches, ", the last copied from the device,");
    {
        std::lock_guard lock(events_mutex);
        if (detached) return;
        try {
            if (events.stage) events.stage(StageReport{Stage::failed, {}, 0, 0});
            if (events.failed) events.failed(hung);
        } catch (...) {
            // A listener that throws must not take the process down with it.
        }
        detached = true;
    }
    {
        std::lock_guard lock(mutex);
        if (at_work) at_work->release_mark();
        ended = true;
    }
    ended_changed.notify_all();
}

// With the figures a learner can act on: what the device has, and what the network asks for.
std::string TrainingJob::State::out_of_memory_message(const std::string& error) const {
    std::string message = "the network does not fit the memory of ";
    message += device_name.empty() ? std::string("the device") : device_name;
    if (device_memory > 0) {
        message += " (";
        message += format_bytes(device_memory);
        message += ", at most ";
        message += format_bytes(device_max_allocation);
        message += " in one buffer";
        if (network_bytes > 0) {
            message += "; this network needs about ";
            message += format_bytes(network_bytes);
            message += " at batch ";
            message += std::to_string(setup.project.training.batch_size);
        }
        message += ")";
    }
    message += ": try a smaller batch size, fewer units or filters, or another device (";
    message += error;
    message += ")";
    return message;
}

// A failure part-way through training saves the weights the device could still give back.
void TrainingJob::State::keep_weights(JobFailure& failure) const noexcept {
    failure.epochs_completed = result.epochs_completed;
    if (!result.training_began || result.weights.empty()) return;
    if (!result.kept_after_batches) {
        save_failure_weights(failure, result.weights, result.batches_trained, "");
        return;
    }
    const char* which = failure.kind == FailureKind::diverged
                            ? ", the last known to be finite,"
                            : ", the last kept whole (the failing batch's update did not finish),";
    save_failure_weights(failure, result.weights, *result.kept_after_batches, which);
}

// `weights` become the failure's. They are saved beside the file the run was to save to (never
// over it, nor over any other file), the message naming both and saying after how many batches
// of this run the weights were taken and, in `which` (", the last known to be finite,"), what they are.
void TrainingJob::State::save_failure_weights(JobFailure& failure, std::vector<io::NamedArray> weights,
                                              std::size_t batches, const char* which) const noexcept {
    try {
        failure.weights = std::move(weights);
        if (setup.save_weights.empty()) return;
        const std::filesystem::path rescue = rescue_file_for(
            setup.save_weights, failure.kind == FailureKind::diverged ? "last-finite" : "rescued", batches);
        save_trained_weights(rescue, setup.project, kept_card, failure.weights);
        failure.saved_to = rescue;
        failure.message += "; the weights as they were after " + std::to_string(batches) +
                           (batches == 1 ? " batch" : " batches") + " of this run" + which + " are saved in " +
                           rescue.string() + " (" + setup.save_weights.string() +
                           " is written only by a run that ends well)";
    } catch (...) {
        // The failure already says what went wrong; a weights file that cannot be written adds nothing.
    }
}

void TrainingJob::State::run() noexcept {
    try {
        work();
    } catch (...) {
        JobFailure failure = failure_of(std::current_exception());
        // After the watchdog, the files are what its failure said (and this one is sent nowhere).
        if (!ended_by_watchdog) keep_weights(failure);
        try {
            stage(Stage::failed);
            send(events.failed, failure);
        } catch (...) {
            // A listener that throws must not take the process down with it.
        }
    }
    std::unique_ptr<device::DeviceForWork> done_with;  // released outside the lock: the driver may take a while
    {
        std::lock_guard lock(mutex);
        // The mark goes before the job counts as ended: a process that ends once it sees that (a test, a
        // command) would otherwise leave it behind, and the next start would take it for a crash and
        // empty PoCL's cache under the processes that use it then.
        if (at_work) at_work->release_mark();
        done_with = std::move(at_work);  // the device is no longer used
        ended = true;
        worker_done = true;
    }
    done_with.reset();
    ended_changed.notify_all();
}

// What every task needs once preparation is over: the project with this run's overrides (in
// `setup`), the weights read, the data's facts and the device with its kernels built.
struct TrainingJob::State::Prepared {
    std::optional<Checkpoint> resumed;
    std::optional<SavedWeights> weights;
    DataFacts facts;
    std::string name;  // the project's name, or its source
    cl::DeviceInfo device;
    ops::Runtime* runtime = nullptr;
};

void TrainingJob::State::work() {
    result.task = setup.task;
    Prepared prepared;
    if (!prepare(prepared)) return finish(result);
    if (setup.task == JobTask::evaluate) return evaluate_weights(prepared);
    train(prepared);
}

// In the order that fails fastest: the settings, the save destinations, the network against its
// data's shape and the weights, then the device and its kernels. False when a stop came first.
bool TrainingJob::State::prepare(Prepared& prepared) {
    // A resumed run is the checkpoint's project, at the learning rate in force when it stopped.
    std::optional<Checkpoint>& resumed = prepared.resumed;
    if (setup.task == JobTask::train && !setup.resume_from.empty()) {
        phase = FailureKind::file;
        resumed = read_checkpoint(setup.resume_from);
        setup.project = *resumed->weights.project;
        setup.project.training.optimizer.learning_rate = resumed->position.learning_rate;
    }
    project::Project& project = setup.project;
    project::TrainingSettings& training = project.training;
    if (setup.epochs) training.epochs = *setup.epochs;
    if (setup.batch_size) training.batch_size = *setup.batch_size;
    if (setup.learning_rate) training.optimizer.learning_rate = *setup.learning_rate;
    if (setup.seed) training.seed = *setup.seed;
    if (resumed && !setup.learning_rate && !train::learning_rate_accepted(training.optimizer.learning_rate))
        throw io::WeightsFileError(setup.resume_from, "holds the learning rate " +
                                                          format_exact(training.optimizer.learning_rate) +
                                                          ", but a run needs one " + train::learning_rate_range +
                                                          "; give another with backprop resume --lr RATE");
    if (!train::learning_rate_accepted(training.optimizer.learning_rate))
        throw std::invalid_argument(std::string("the learning rate must be ") + train::learning_rate_range + ", not " +
                                    format_rate(training.optimizer.learning_rate));
    prepared.name = project.name.empty() ? setup.source : project.name;

    // Everything that can be checked without the images and the device comes first.
    phase = FailureKind::file;
    if (setup.task == JobTask::train) {
        for (const std::filesystem::path& destination : {setup.save_weights, setup.checkpoint}) {
            if (destination.empty()) continue;
            refuse_the_project_file(destination, setup.project_file);
            io::check_weights_destination(destination);
        }
    }
    if (resumed && resumed->position.epoch >= training.epochs) {
        std::string problem = "has already trained ";
        problem += std::to_string(resumed->position.epoch);
        problem += " of ";
        problem += std::to_string(training.epochs);
        problem +=
            " epochs: nothing is left to train; ask for more epochs (backprop resume --epochs N) to train further";
        throw io::WeightsFileError(setup.resume_from, problem);
    }
    if (setup.task == JobTask::evaluate && setup.weights.empty())
        throw std::invalid_argument("evaluating needs a weights file");
    // The weights (to start from or to evaluate) are read once, before any image.
    phase = FailureKind::project;
    prepared.facts = setup.data ? facts_of(*setup.data) : project_data_facts(project.dataset);
    network_bytes = check_network(setup, prepared.facts);
    if (resumed) prepared.weights = resumed->weights;
    if (!prepared.weights && !setup.weights.empty()) prepared.weights = read_saved_weights(setup.weights);
    if (setup.task == JobTask::evaluate) check_weights_fit(*prepared.weights, prepared.facts);

    phase = FailureKind::device;
    stage(Stage::preparing, "choosing a device");
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const std::size_t chosen = cl::select_device(devices, setup.device_request);
    prepared.device = devices.at(chosen);
    device_name = prepared.device.name;
    cpu_offer = device::cpu_device_offer({devices.begin(), devices.end()}, chosen);
    device_memory = prepared.device.global_memory_bytes;
    device_max_allocation = prepared.device.max_allocation_bytes;
    if (control.stop_requested()) return false;

    // In use until the job ends, so that a crash inside the driver clears its caches next time.
    // Opening takes a moment (the crash guard's mark, a context); then the first program's build,
    // a second or more on a cold cache, already counts: "building kernels 0/14".
    stage(Stage::preparing, "opening the device");
    const std::size_t programs = ops::programs_for(prepared.device).size();
    auto opened = std::make_unique<device::DeviceForWork>(
        prepared.device, device::DeviceOpening{[this](const std::string& note) { send(events.note, note); },
                                               [this, programs](std::size_t done, std::size_t) {
                                                   stage(Stage::preparing, "building kernels", done, programs);
                                               }});
    prepared.runtime = &opened->runtime();
    {
        std::lock_guard lock(mutex);
        at_work = std::move(opened);
    }
    if (control.stop_requested()) return false;
    check_device_results(prepared.device, *prepared.runtime);
    return true;
}

// The project's dataset read from disk, reporting as it goes; `skipped` gets an image folder's
// unreadable files. Nothing when a stop came while reading.
std::optional<datasets::DatasetSplits> TrainingJob::State::read_data(const Prepared& prepared,
                                                                     std::vector<std::string>& skipped) {
    phase = FailureKind::data;
    const std::string reading = "reading " + prepared.facts.title;
    stage(Stage::preparing, reading);
    std::vector<datasets::SkippedImage> unreadable;
    // An image folder reports every image: pass on about one in a hundred.
    std::size_t last_sent = 0;
    datasets::DatasetSplits splits =
        load_project_data(setup.project.dataset, &unreadable, [&](std::size_t done, std::size_t total) {
            if (done != total && done != 0 && done - last_sent < std::max<std::size_t>(total / 100, 1)) return;
            last_sent = done;
            stage(Stage::preparing, reading, done, total);
        });
    for (const datasets::SkippedImage& image : unreadable) skipped.push_back(image.file.string() + ": " + image.reason);
    if (control.stop_requested()) return std::nullopt;
    stage(Stage::preparing, "preparing the images");
    return splits;
}

void TrainingJob::State::evaluate_weights(Prepared& prepared) {
    const project::Project& project = setup.project;
    const SavedWeights& weights = *prepared.weights;
    // The weights go into the network before the images are read: a file from another network
    // fails at once.
    phase = FailureKind::project;
    stage(Stage::preparing, "building the network");
    const std::unique_ptr<model::Network> network =
        network_with_weights(*prepared.runtime, project, prepared.facts.shape, project.training.batch_size, weights);

    std::shared_ptr<const TrainingData> data = setup.data;
    if (!data) {
        std::vector<std::string> skipped;
        std::optional<datasets::DatasetSplits> splits = read_data(prepared, skipped);
        if (!splits) return finish(result);
        // Evaluation uses the test split, or a whole folder, normalised as in training.
        const bool whole_folder = splits->test.size() == 0;
        // A Keras file from another program has no card: its images are normalised as the
        // project's training would normalise them.
        datasets::Normalization normalization;
        if (weights.card)
            normalization = weights.card->normalization;
        else if (project.dataset.normalize)
            normalization = datasets::compute_normalization(splits->train);
        auto loaded = std::make_shared<TrainingData>();
        loaded->test = whole_folder ? std::move(splits->train) : std::move(splits->test);
        normalize_like(loaded->test, normalization);
        result.whole_folder = whole_folder;
        data = loaded;
    }
    if (control.stop_requested()) return finish(result);

    phase = FailureKind::internal;
    result.class_names = weights.card ? weights.card->class_names : data->test.class_names;
    stage(Stage::evaluating, "test images");
    EvaluationWithSamples test = evaluate_with_samples(*network, data->test);
    result.test = test.overall;
    result.test_samples = std::move(test.samples);
    finish(result);
}

void TrainingJob::State::train(Prepared& prepared) {
    const project::Project& project = setup.project;
    std::shared_ptr<const TrainingData> data = setup.data;
    std::vector<std::string> skipped;
    if (!data) {
        std::optional<datasets::DatasetSplits> splits = read_data(prepared, skipped);
        if (!splits) return finish(result);
        data = std::make_shared<TrainingData>(
            prepare_training_data(std::move(*splits), project.dataset, project.training.seed));
    }
    if (control.stop_requested()) return finish(result);

    phase = FailureKind::internal;
    RunFacts facts_sent;
    facts_sent.name = prepared.name;
    facts_sent.data_title = prepared.facts.title;
    facts_sent.device = prepared.device;
    facts_sent.training = project.training;
    facts_sent.train_images = data->split.train.size();
    facts_sent.validation_images = data->split.validation.size();
    facts_sent.test_images = data->test.size();
    facts_sent.skipped_images = skipped;
    facts_sent.class_names = data->train.class_names;
    // What the weights files written by this run (trained, checkpoint, or kept after a failure)
    // say about their images.
    kept_card = model_card_for(prepared.name, data->train, data->normalization);
    facts_sent.card = kept_card;
    send(events.started, facts_sent);

    const JobEvents run_events = guarded_events();
    TrainingRun run{*prepared.runtime, project, *data, control, run_events, detached, setup.report_interval, {}};
    run.watchdog_limit = setup.watchdog_limit;
    run.hung = [this](std::chrono::milliseconds quiet, std::size_t batches, KeptWeights kept) {
        device_hung(quiet, batches, std::move(kept));
    };
    run.ended_by_watchdog = &ended_by_watchdog;
    if (prepared.weights) {
        run.starting_weights = weights_for_network(*prepared.weights, project, data->train.shape);
        run.starting_file = prepared.weights->file;
    }
    run.on_divergence = setup.on_divergence;
    if (prepared.resumed) {
        run.resume_at = prepared.resumed->position;
        run.resume_optimizer_state = std::move(prepared.resumed->optimizer_state);
        run.resume_file = setup.resume_from;
    }
    run.checkpoint = setup.checkpoint;
    run.replay_folder = setup.replay_folder;
    run.inside_interval_ms = &inside_interval_ms;
    run.batch_limit = setup.batch_limit;
    run.test_when_stopped = setup.test_when_stopped;
    run.data_placement = setup.data_placement;
    run.card = kept_card;
    run.train(result);
    result.class_names = data->train.class_names;
    if (ended_by_watchdog) return;  // its failure went out, with the weights it could save

    // A run paused by a divergence and stopped has gone back to its last finite weights: saved too.
    if (!setup.save_weights.empty() && result.training_began) {
        phase = FailureKind::file;
        save_trained_weights(setup.save_weights, project, kept_card, result.weights);
        result.saved_to = setup.save_weights;
    }
    finish(result);
}

TrainingJob::TrainingJob(JobSetup setup, JobEvents events) : state_(std::make_shared<State>()) {
    state_->setup = std::move(setup);
    state_->events = std::move(events);
    state_->inside_interval_ms = state_->setup.inside_interval.count();
    // The thread owns a reference: a job destroyed while its device is busy ends on its own.
    std::thread([state = state_] { state->run(); }).detach();
}

TrainingJob::~TrainingJob() {
    state_->control.stop();
    // A worker between batches ends within one batch; one stuck in a long device call is left to
    // end on its own, sending nothing more.
    wait_for(std::chrono::milliseconds(250));
    state_->detached = true;
}

void TrainingJob::pause() {
    state_->control.pause();
}
void TrainingJob::resume() {
    state_->control.resume();
}
void TrainingJob::step() {
    state_->control.step();
}
void TrainingJob::stop() {
    state_->control.stop();
}
void TrainingJob::set_learning_rate(float rate) {
    state_->control.set_learning_rate(rate);
}
void TrainingJob::set_inside_interval(std::chrono::milliseconds interval) {
    state_->inside_interval_ms = std::max<long long>(interval.count(), 0);
}

bool TrainingJob::wait_for(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(state_->mutex);
    return state_->ended_changed.wait_for(lock, timeout, [this] { return state_->ended; });
}

bool TrainingJob::wait_for_worker(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(state_->mutex);
    return state_->ended_changed.wait_for(lock, timeout, [this] { return state_->worker_done; });
}

}  // namespace bps::session
