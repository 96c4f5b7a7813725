#include "engine/compare/device_comparison.h"

#include <algorithm>
#include <stdexcept>

#include "engine/bench/comparison_details.h"
#include "engine/bench/device_microbenchmarks.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/bench/self_test.h"
#include "engine/bench/step_timing.h"
#include "engine/bench/work_model.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/self_test_record.h"
#include "engine/model/network.h"
#include "engine/ops/device_for_work.h"
#include "engine/train/random.h"

namespace bps::bench {

namespace {

constexpr int synthetic_batches = 8;  // the loss curve cycles through this many batches
constexpr int max_curve_batches = 100000;

// Where each stage of one device's comparison lies in its share of the progress bar.
struct Stage {
    const char* what;
    double start, end;
};
constexpr Stage building{"building kernels", 0.0, 0.1};
constexpr Stage figures{"device figures", 0.1, 0.3};
constexpr Stage timing_stage{"training steps", 0.3, 0.5};
constexpr Stage curve_stage{"loss curve", 0.5, 0.8};
constexpr Stage starts_stage{"first batch, cold and warm start (a new process each)", 0.8, 1.0};

class Reporter {
public:
    Reporter(const ComparisonEvents& events, std::size_t count) : events_(events), count_(count) {}
    void device(std::size_t position, const std::string& name) {
        position_ = position;
        name_ = name;
        run_ = 0;
        run_count_ = 1;
        network_name_.clear();
        batch_size_ = 0;
    }
    // The planned run in progress: the stages from the step timing on share the device's rest
    // among its runs.
    void run(std::size_t position, std::size_t count, const PlannedRun& run) {
        run_ = position;
        run_count_ = std::max<std::size_t>(count, 1);
        network_name_ = run.network.name;
        batch_size_ = run.batch_size;
    }
    // `within`: how far the stage itself has got, 0 to 1.
    void operator()(const Stage& stage, const std::string& activity, double within = 0) const {
        if (!events_.progress) return;
        ComparisonProgress progress;
        progress.device_position = position_;
        progress.device_count = count_;
        progress.device_name = name_;
        progress.network_name = network_name_;
        progress.batch_size = batch_size_;
        progress.activity = activity;
        double share = stage.start + (stage.end - stage.start) * std::clamp(within, 0.0, 1.0);
        if (stage.start >= runs_start)
            share = runs_start + (static_cast<double>(run_) + share - runs_start) / static_cast<double>(run_count_);
        progress.fraction = (static_cast<double>(position_) + share) / static_cast<double>(count_);
        events_.progress(progress);
    }

private:
    static constexpr double runs_start = 0.3;  // where the planned runs' stages begin
    const ComparisonEvents& events_;
    std::size_t count_;
    std::size_t position_ = 0;
    std::string name_;
    std::size_t run_ = 0, run_count_ = 1;
    std::string network_name_;
    int batch_size_ = 0;
};

void check_setup(const ComparisonSetup& setup) {
    if (setup.devices.empty()) throw std::invalid_argument("no device is chosen to compare");
    if (setup.curve_batches < 1 || setup.curve_batches > max_curve_batches)
        throw std::invalid_argument("the loss curve's batches must be 1 to " + std::to_string(max_curve_batches) +
                                    ", not " + std::to_string(setup.curve_batches));
    if (setup.plan.runs < 1 || setup.plan.steps < 0 || setup.plan.warm_up_steps < 0)
        throw std::invalid_argument("the step timing needs a timed run or more, and no negative step count");
    for (const PlannedRun& run : planned_runs(setup)) {
        if (run.batch_size < 1 || run.batch_size > 65536)
            throw std::invalid_argument("the batch size must be 1 to 65536, not " + std::to_string(run.batch_size));
        try {
            (void)training_step_work(run.network.network, run.batch_size);  // a network that cannot be built
        } catch (const std::exception& error) {
            throw std::invalid_argument("the network '" + run.network.name + "' cannot be built: " + error.what());
        }
    }
}

bool is_reference_network(const std::string& name) {
    return name == "mlp" || name == "cnn" || name == "cifar";
}

bool requested(const std::atomic<bool>* cancel) {
    return cancel && cancel->load();
}

void throw_if_cancelled(const std::atomic<bool>* cancel) {
    if (requested(cancel)) throw TimingCancelled();
}

void run_self_test_if_needed(ops::Runtime& runtime, const cl::DeviceInfo& device, DeviceComparison& result,
                             const Reporter& report) {
    if (device.self_test != device::SelfTestState::not_run) return;
    report(building, "self-test", 1);
    const device::SelfTestResult test = device::run_self_test(runtime);
    device::store_self_test(cl::cache_root(), device, test);
    device::set_self_test_state(result.device, test);
}

DeviceMicrobenchmarks measure_figures(ops::Runtime& runtime, DeviceComparison& result, const Reporter& report,
                                      const std::atomic<bool>* cancel) {
    DeviceMicrobenchmarks micro = measure_device(runtime, {}, [&](const std::string& what) {
        throw_if_cancelled(cancel);
        report(figures, what, 0.5);
    });
    result.copy_gb_per_s = micro.copy_gb_per_s;
    result.sgemm_gflops_per_s = micro.best_gflops_per_s();
    return micro;
}

void time_steps(ops::Runtime& runtime, const ComparisonSetup& setup, const PlannedRun& run, DeviceComparison& result,
                ComparisonDetails& details, const std::atomic<bool>* cancel) {
    details.work = training_step_work(run.network.network, run.batch_size);
    StepTimingOptions options;
    options.batch_size = run.batch_size;
    options.warm_up_steps = setup.plan.warm_up_steps;
    options.steps = setup.plan.steps;
    options.runs = setup.plan.runs;
    options.per_layer = setup.plan.per_layer;
    options.seed = setup.seed;
    options.cancel = cancel;
    const StepTiming& timing = details.timing.emplace(time_training_step(runtime, run.network.network, options));
    result.images_per_s = timing.images_per_s;
    result.step_ms = timing.step_ms;
    result.device_bytes = timing.device_bytes;
    result.kernels_per_step = timing.kernels_per_step;
    result.gemms_per_step = timing.gemms_per_step;
    const StepRates rates =
        step_rates(details.work, run.batch_size, timing.images_per_s, result.sgemm_gflops_per_s, result.copy_gb_per_s);
    result.step_gflops_per_s = rates.gflops_per_s;
    result.step_gb_per_s = rates.gb_per_s;
    result.of_sgemm_peak = rates.of_sgemm_peak;
    result.of_bandwidth = rates.of_bandwidth;
}

// Each step waits for its loss: the curve is for looking at, its time is not measured.
void train_loss_curve(ops::Runtime& runtime, const ComparisonSetup& setup, const PlannedRun& run,
                      DeviceComparison& result, const Reporter& report, const std::atomic<bool>* cancel) {
    model::Network network(runtime, run.network.network, run.batch_size, setup.optimizer, setup.seed);
    const int classes = static_cast<int>(network.output_shape().per_sample());
    const int batch = run.batch_size;
    std::vector<SyntheticBatch> cycle;  // the batches repeat: each is made once
    for (int step = 0; step < setup.curve_batches; ++step) {
        throw_if_cancelled(cancel);
        if (step % 10 == 0)
            report(curve_stage,
                   "loss curve, batch " + std::to_string(step + 1) + " of " + std::to_string(setup.curve_batches),
                   static_cast<double>(step) / setup.curve_batches);
        if (step < synthetic_batches)
            cycle.push_back(comparison_batch(run.network.network, classes, batch, setup.seed, step));
        const SyntheticBatch& data = cycle[static_cast<std::size_t>(step % synthetic_batches)];
        network.clear_totals();
        network.upload_images(data.images, batch);
        network.upload_labels(data.labels);
        network.forward(batch, true);
        network.loss(batch);
        network.backward(batch);
        network.update(setup.optimizer.learning_rate);
        const model::Network::Totals totals = network.read_totals();
        result.losses.push_back(totals.samples ? totals.loss_sum / static_cast<double>(totals.samples) : 0);
    }
}

void time_starts(const ComparisonSetup& setup, const PlannedRun& run, const cl::DeviceInfo& device,
                 DeviceComparison& result, ComparisonDetails& details) {
    if (setup.first_batch_program.empty()) return;
    const PlannedNetwork& network = run.network;
    if (network.project.empty() && !is_reference_network(network.name)) {
        result.start_error = "the project has no saved file for the command line to start with";
        return;
    }
    const FirstBatchTimes& times = details.first_batch.emplace(time_first_batches(
        setup.first_batch_program, "--device " + std::to_string(device.index) + " --nets " +
                                       shell_quoted(network.project.empty() ? network.name : network.project) +
                                       " --batches " + std::to_string(run.batch_size)));
    result.cold_start_s = times.cold_seconds;
    result.warm_start_s = times.warm_seconds;
    result.start_error = times.error;
}

// Appends each result as it ends and tells `events` of it.
class DeviceResults {
public:
    DeviceResults(const ComparisonEvents& events, std::vector<DeviceComparison>& results)
        : events_(events), results_(results) {}
    void add(DeviceComparison result, std::shared_ptr<const ComparisonDetails> details) {
        result.details = std::move(details);
        if (events_.device_done) events_.device_done(result);
        results_.push_back(std::move(result));
    }

private:
    const ComparisonEvents& events_;
    std::vector<DeviceComparison>& results_;
};

DeviceComparison planned_result(const DeviceComparison& device_part, const PlannedRun& run) {
    DeviceComparison result = device_part;
    result.network_name = run.network.name;
    result.batch_size = run.batch_size;
    return result;
}

// The device could not be used: every planned run gets its error.
void fail_device(const DeviceComparison& device_part, const std::vector<PlannedRun>& runs, const std::string& error,
                 const std::string& as_said, DeviceResults& results) {
    auto details = std::make_shared<ComparisonDetails>();
    details->device_failed = true;
    details->device_error = as_said;
    for (const PlannedRun& run : runs) {
        DeviceComparison result = planned_result(device_part, run);
        result.error = error;
        results.add(std::move(result), details);
    }
}

std::string naming_device(const std::string& error, const cl::DeviceInfo& device) {
    return error.find(device.name) == std::string::npos ? error + " (on " + device.name + ")" : error;
}

// One planned run on the open device; false when it was cancelled.
bool compare_run(ops::Runtime& runtime, const ComparisonSetup& setup, const PlannedRun& run,
                 const DeviceComparison& device_part, const std::optional<DeviceMicrobenchmarks>& micro,
                 const Reporter& report, const std::atomic<bool>* cancel, DeviceResults& results) {
    const cl::DeviceInfo& device = runtime.device();
    DeviceComparison result = planned_result(device_part, run);
    auto details = std::make_shared<ComparisonDetails>();
    details->micro = micro;
    try {
        report(timing_stage, timing_stage.what);
        time_steps(runtime, setup, run, result, *details, cancel);
        train_loss_curve(runtime, setup, run, result, report, cancel);
        throw_if_cancelled(cancel);
        if (!setup.first_batch_program.empty()) report(starts_stage, starts_stage.what);  // only when timed
        time_starts(setup, run, device, result, *details);
    } catch (const TimingCancelled&) {
        result.cancelled = true;
    } catch (const std::exception& error) {
        result.error = naming_device(error.what(), device);
    }
    const bool cancelled = result.cancelled;
    results.add(std::move(result), std::move(details));
    return !cancelled;
}

void compare_one(const ComparisonSetup& setup, const std::vector<PlannedRun>& runs, const cl::DeviceInfo& device,
                 Reporter& report, const ComparisonDeviceEvents& events, const std::atomic<bool>* cancel,
                 DeviceResults& results) {
    DeviceComparison device_part;  // what every run's result shares
    device_part.device = device;
    if (!device.skipped.empty()) {
        fail_device(device_part, runs, device.name + ": " + device.skipped, device.skipped, results);
        return;
    }
    std::optional<DeviceMicrobenchmarks> micro;
    try {
        report(building, building.what);
        device::DeviceForWork opened(device, {events.note, {}});
        ops::Runtime& runtime = opened.runtime();
        try {
            if (setup.self_test) run_self_test_if_needed(runtime, device, device_part, report);
            throw_if_cancelled(cancel);
            if (setup.device_figures) micro = measure_figures(runtime, device_part, report, cancel);
        } catch (const TimingCancelled&) {
            DeviceComparison result = planned_result(device_part, runs.front());
            result.cancelled = true;
            results.add(std::move(result), std::make_shared<ComparisonDetails>());
            return;
        }
        for (std::size_t position = 0; position < runs.size(); ++position) {
            report.run(position, runs.size(), runs[position]);
            if (!compare_run(runtime, setup, runs[position], device_part, micro, report, cancel, results)) return;
        }
    } catch (const std::exception& error) {
        // Opening the device or its own figures failed: no run has a result yet.
        fail_device(device_part, runs, naming_device(error.what(), device), error.what(), results);
    }
}

}  // namespace

std::vector<PlannedRun> planned_runs(const ComparisonSetup& setup) {
    std::vector<PlannedNetwork> networks = setup.plan.networks;
    if (networks.empty()) networks.push_back({setup.network_name, setup.network, setup.project});
    std::vector<int> batch_sizes = setup.plan.batch_sizes;
    if (batch_sizes.empty()) batch_sizes.push_back(setup.batch_size);
    std::vector<PlannedRun> runs;
    for (const PlannedNetwork& network : networks)
        for (const int batch_size : batch_sizes) runs.push_back({network, batch_size});
    return runs;
}

std::vector<DeviceComparison> compare_devices(const ComparisonSetup& setup, const ComparisonEvents& events,
                                              const std::atomic<bool>* cancel,
                                              const ComparisonDeviceEvents& device_events) {
    check_setup(setup);
    const std::vector<PlannedRun> runs = planned_runs(setup);
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    Reporter report(events, setup.devices.size());
    std::vector<DeviceComparison> results;
    for (std::size_t position = 0; position < setup.devices.size(); ++position) {
        if (requested(cancel)) break;
        const std::size_t index = setup.devices[position];
        std::vector<DeviceComparison> of_device;
        DeviceResults adding(events, of_device);
        if (index >= devices.size()) {
            DeviceComparison missing;
            missing.device.index = index;
            missing.device.name = "device " + std::to_string(index);
            const std::string error = "there is no OpenCL device " + std::to_string(index) + " (" +
                                      std::to_string(devices.size()) + " found)";
            fail_device(missing, runs, error, error, adding);
        } else {
            report.device(position, devices[index].name);
            compare_one(setup, runs, devices[index], report, device_events, cancel, adding);
        }
        if (device_events.device_end) device_events.device_end(of_device);
        results.insert(results.end(), of_device.begin(), of_device.end());
        if (!results.empty() && results.back().cancelled) break;
    }
    return results;
}

SyntheticBatch comparison_batch(const model::NetworkSpec& spec, int classes, int batch_size, std::uint64_t seed,
                                int step) {
    const std::size_t per_image = spec.input.per_sample();
    const std::size_t count = static_cast<std::size_t>(std::max(batch_size, 0));
    const int kinds = std::max(classes, 1);
    // Each class's pattern: fixed by the seed alone.
    train::Random patterns(seed * 7919 + 17);
    std::vector<float> pattern(static_cast<std::size_t>(kinds) * per_image);
    for (float& v : pattern) v = patterns.uniform();
    train::Random random(seed * 104729 + 1000 + static_cast<std::uint64_t>(step % synthetic_batches));
    SyntheticBatch batch;
    batch.labels.resize(count);
    batch.images.resize(count * per_image);
    for (std::size_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(random.below(static_cast<std::uint32_t>(kinds)));
        batch.labels[i] = label;
        const float* own = pattern.data() + static_cast<std::size_t>(label) * per_image;
        for (std::size_t j = 0; j < per_image; ++j)
            batch.images[i * per_image + j] = 0.5f * own[j] + 0.5f * random.uniform();
    }
    return batch;
}

}  // namespace bps::bench
