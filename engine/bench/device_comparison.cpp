#include "engine/bench/device_comparison.h"

#include <algorithm>
#include <stdexcept>

#include "engine/bench/device_microbenchmarks.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/bench/step_timing.h"
#include "engine/bench/work_model.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/device_for_work.h"
#include "engine/device/self_test_record.h"
#include "engine/device/self_test_runner.h"
#include "engine/model/network.h"
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
    }
    // `within`: how far the stage itself has got, 0 to 1.
    void operator()(const Stage& stage, const std::string& activity, double within = 0) const {
        if (!events_.progress) return;
        ComparisonProgress progress;
        progress.device_position = position_;
        progress.device_count = count_;
        progress.device_name = name_;
        progress.activity = activity;
        const double share = stage.start + (stage.end - stage.start) * std::clamp(within, 0.0, 1.0);
        progress.fraction = (static_cast<double>(position_) + share) / static_cast<double>(count_);
        events_.progress(progress);
    }

private:
    const ComparisonEvents& events_;
    std::size_t count_;
    std::size_t position_ = 0;
    std::string name_;
};

void check_setup(const ComparisonSetup& setup) {
    if (setup.devices.empty()) throw std::invalid_argument("no device is chosen to compare");
    if (setup.batch_size < 1 || setup.batch_size > 65536)
        throw std::invalid_argument("the batch size must be 1 to 65536, not " + std::to_string(setup.batch_size));
    if (setup.curve_batches < 1 || setup.curve_batches > max_curve_batches)
        throw std::invalid_argument("the loss curve's batches must be 1 to " + std::to_string(max_curve_batches) +
                                    ", not " + std::to_string(setup.curve_batches));
    try {
        (void)training_step_work(setup.network, setup.batch_size);  // a network that cannot be built
    } catch (const std::exception& error) {
        throw std::invalid_argument("the network '" + setup.network_name + "' cannot be built: " + error.what());
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

void measure_figures(ops::Runtime& runtime, DeviceComparison& result, const Reporter& report,
                     const std::atomic<bool>* cancel) {
    const DeviceMicrobenchmarks micro = measure_device(runtime, {}, [&](const std::string& what) {
        throw_if_cancelled(cancel);
        report(figures, what, 0.5);
    });
    result.copy_gb_per_s = micro.copy_gb_per_s;
    result.sgemm_gflops_per_s = micro.best_gflops_per_s();
}

void time_steps(ops::Runtime& runtime, const ComparisonSetup& setup, DeviceComparison& result,
                const std::atomic<bool>* cancel) {
    StepTimingOptions options;
    options.batch_size = setup.batch_size;
    options.seed = setup.seed;
    options.cancel = cancel;
    const StepTiming timing = time_training_step(runtime, setup.network, options);
    result.images_per_s = timing.images_per_s;
    result.step_ms = timing.step_ms;
    result.device_bytes = timing.device_bytes;
    result.kernels_per_step = timing.kernels_per_step;
    result.gemms_per_step = timing.gemms_per_step;
    const StepRates rates = step_rates(training_step_work(setup.network, setup.batch_size), setup.batch_size,
                                       timing.images_per_s, result.sgemm_gflops_per_s, result.copy_gb_per_s);
    result.step_gflops_per_s = rates.gflops_per_s;
    result.step_gb_per_s = rates.gb_per_s;
    result.of_sgemm_peak = rates.of_sgemm_peak;
    result.of_bandwidth = rates.of_bandwidth;
}

// Each step waits for its loss: the curve is for looking at, its time is not measured.
void train_loss_curve(ops::Runtime& runtime, const ComparisonSetup& setup, DeviceComparison& result,
                      const Reporter& report, const std::atomic<bool>* cancel) {
    model::Network network(runtime, setup.network, setup.batch_size, setup.optimizer, setup.seed);
    const int classes = static_cast<int>(network.output_shape().per_sample());
    const int batch = setup.batch_size;
    std::vector<SyntheticBatch> cycle;  // the batches repeat: each is made once
    for (int step = 0; step < setup.curve_batches; ++step) {
        throw_if_cancelled(cancel);
        if (step % 10 == 0)
            report(curve_stage,
                   "loss curve, batch " + std::to_string(step + 1) + " of " + std::to_string(setup.curve_batches),
                   static_cast<double>(step) / setup.curve_batches);
        if (step < synthetic_batches)
            cycle.push_back(comparison_batch(setup.network, classes, batch, setup.seed, step));
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

void time_starts(const ComparisonSetup& setup, const cl::DeviceInfo& device, DeviceComparison& result) {
    if (setup.first_batch_program.empty()) return;
    if (setup.project.empty() && !is_reference_network(setup.network_name)) {
        result.start_error = "the project has no saved file for the command line to start with";
        return;
    }
    const FirstBatchTimes times = time_first_batches(
        setup.first_batch_program, "--device " + std::to_string(device.index) + " --nets " +
                                       shell_quoted(setup.project.empty() ? setup.network_name : setup.project) +
                                       " --batches " + std::to_string(setup.batch_size));
    result.cold_start_s = times.cold_seconds;
    result.warm_start_s = times.warm_seconds;
    result.start_error = times.error;
}

DeviceComparison compare_one(const ComparisonSetup& setup, const cl::DeviceInfo& device, const Reporter& report,
                             const std::atomic<bool>* cancel) {
    DeviceComparison result;
    result.device = device;
    if (!device.skipped.empty()) {
        result.error = device.name + ": " + device.skipped;
        return result;
    }
    try {
        report(building, building.what);
        device::DeviceForWork opened(device);
        ops::Runtime& runtime = opened.runtime();
        run_self_test_if_needed(runtime, device, result, report);
        throw_if_cancelled(cancel);
        if (setup.device_figures) measure_figures(runtime, result, report, cancel);
        report(timing_stage, timing_stage.what);
        time_steps(runtime, setup, result, cancel);
        train_loss_curve(runtime, setup, result, report, cancel);
        throw_if_cancelled(cancel);
        report(starts_stage, starts_stage.what);
        time_starts(setup, device, result);
    } catch (const TimingCancelled&) {
        result.cancelled = true;
    } catch (const std::exception& error) {
        result.error = error.what();
        if (result.error.find(device.name) == std::string::npos) result.error += " (on " + device.name + ")";
    }
    return result;
}

}  // namespace

std::vector<DeviceComparison> compare_devices(const ComparisonSetup& setup, const ComparisonEvents& events,
                                              const std::atomic<bool>* cancel) {
    check_setup(setup);
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    Reporter report(events, setup.devices.size());
    std::vector<DeviceComparison> results;
    for (std::size_t position = 0; position < setup.devices.size(); ++position) {
        if (requested(cancel)) break;
        const std::size_t index = setup.devices[position];
        DeviceComparison result;
        if (index >= devices.size()) {
            result.device.index = index;
            result.device.name = "device " + std::to_string(index);
            result.error = "there is no OpenCL device " + std::to_string(index) + " (" +
                           std::to_string(devices.size()) + " found)";
        } else {
            report.device(position, devices[index].name);
            result = compare_one(setup, devices[index], report, cancel);
        }
        if (events.device_done) events.device_done(result);
        results.push_back(std::move(result));
        if (results.back().cancelled) break;
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
