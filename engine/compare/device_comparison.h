#pragma once
// The studio's device comparison, behind the engine's front door (no OpenCL in this header): one
// network trains on each chosen device in turn, and each device gets the figures `backprop bench`
// reports (the same code measures them) plus a loss curve. The curve trains the same synthetic,
// learnable batches from the same starting weights on every device, so the curves lie on top of
// each other where the devices compute the same thing, and part where float rounding differs.
//
//     bench::ComparisonSetup setup;
//     setup.network = bench::reference_network("cnn");  // or a project's network
//     setup.network_name = "cnn";
//     setup.devices = {0, 1};                            // DeviceDescription::index, in this order
//     setup.first_batch_program = folder / "backprop";   // the command line, for cold and warm starts
//     std::atomic<bool> cancel{false};                   // Cancel: cancel = true, from any thread
//     auto results = bench::compare_devices(setup, {.progress = show, .device_done = add_row}, &cancel);
//
// `backprop bench` drives the same function with a plan: several networks and batch sizes, each
// timed on every device as its options say, with no self-test (setup.plan, setup.self_test).
//
// Everything runs on the calling thread (the studio's worker thread); the events come on it.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/model/network_spec.h"
#include "engine/train/optimizer_settings.h"

namespace bps::bench {

// One network of a plan.
struct PlannedNetwork {
    std::string name;  // how results name it: "mlp", or the project's file name
    model::NetworkSpec network;
    std::string project;  // the project's file (for the cold and warm starts); empty for a reference network
};

// What every device runs: each network at each batch size, networks outer, in the order given,
// on one opening of the device (kernels built and device figures measured once). Empty lists
// mean the setup's one network and batch size: the studio's comparison.
struct ComparisonPlan {
    std::vector<PlannedNetwork> networks;
    std::vector<int> batch_sizes;
    // The step timing, as engine/bench/step_timing.h's options: steps per timed run (0: as many as
    // take about a second), timed runs, warm-up steps; per_layer adds one step that waits after
    // each layer.
    int steps = 0;
    int runs = 3;
    int warm_up_steps = 3;
    bool per_layer = false;
};

struct ComparisonSetup {
    std::string network_name;  // "cnn", or the project's name: how results name the network
    model::NetworkSpec network;
    std::string project;  // the project's file (for the cold and warm starts); empty for a reference network
    std::vector<std::size_t> devices;  // DeviceDescription::index of each device, compared in this order
    int batch_size = 64;
    int curve_batches = 50;              // training steps of the loss curve (1 to 100000)
    train::OptimizerSettings optimizer;  // of the loss curve; the timing uses bench's SGD 0.01
    std::uint64_t seed = 1;              // the starting weights and the synthetic batches
    bool device_figures = true;          // copy bandwidth, SGEMM and launch latency
    // The `backprop` command line, started twice per device for the time to the first trained
    // batch with empty and with filled kernel caches; empty: those are not timed.
    std::filesystem::path first_batch_program;
    ComparisonPlan plan;
    // A device not self-tested yet is tested first (the studio); `backprop bench` leaves it out,
    // so that its first allocation is the first network's.
    bool self_test = true;
};

// The networks and batch sizes the setup's plan runs on each device, in order.
struct PlannedRun {
    PlannedNetwork network;
    int batch_size = 0;
};
std::vector<PlannedRun> planned_runs(const ComparisonSetup& setup);

// Everything measured for one result, as `backprop bench` reports it (device_comparison_details.h:
// that header brings the device layer, which this one keeps out).
struct ComparisonDetails;

struct ComparisonProgress {
    std::size_t device_position = 0;  // which of setup.devices (0-based)
    std::size_t device_count = 0;
    std::string device_name;
    std::string network_name;  // the planned run in progress; empty before the first
    int batch_size = 0;
    std::string activity;  // "building kernels", "SGEMM 1024", "training steps", "loss curve 12 of 50", ...
    double fraction = 0;   // of the whole comparison, 0 to 1
};

// One device's result for one planned run (the studio's comparison has one run per device).
struct DeviceComparison {
    device::DeviceDescription device;  // with its self-test state after this comparison
    std::string network_name;          // the planned run: PlannedNetwork::name and batch size
    int batch_size = 0;
    std::string error;       // the device could not be compared: why, naming it
    bool cancelled = false;  // stopped part-way: figures not reached are 0 or empty

    // Training on this device, measured as `backprop bench` does (engine/bench/step_timing.h).
    double images_per_s = 0;
    double step_ms = 0;                                // one whole step waited for on its own (median)
    std::optional<double> cold_start_s, warm_start_s;  // program start to the first trained batch
    std::string start_error;                           // why those could not be timed
    std::size_t device_bytes = 0, kernels_per_step = 0, gemms_per_step = 0;
    // The device's own figures (0 when not measured), and the step's rates against them.
    double copy_gb_per_s = 0;
    double sgemm_gflops_per_s = 0;  // its best SGEMM rate
    double step_gflops_per_s = 0, step_gb_per_s = 0;
    std::optional<double> of_sgemm_peak, of_bandwidth;  // fractions, 0 to 1
    // The mean loss of every step of the loss curve, in order.
    std::vector<double> losses;
    // All bench's figures (the device's own in full, every timed run, per layer); null for a result
    // read back from the history.
    std::shared_ptr<const ComparisonDetails> details;
};

struct ComparisonEvents {
    std::function<void(const ComparisonProgress&)> progress;
    std::function<void(const DeviceComparison&)> device_done;  // each device's result, as it ends (per planned run)
};

// What a plan's driver (`backprop bench`) hears besides: kept apart from ComparisonEvents, whose
// two members callers name in designated initializers.
struct ComparisonDeviceEvents {
    // After a device's last result, once the device is closed: all its results, in plan order.
    std::function<void(const std::vector<DeviceComparison>&)> device_end;
    // A line for the learner while the device opens (caches cleared after a crash, a damaged entry).
    std::function<void(const std::string&)> note;
};

// Compares the devices of setup.devices one after another, each running the setup's plan. A
// device that cannot be opened gets its error in a result per planned run; a run that fails (out
// of memory) gets its own and the next run goes on. A device that fails (gone, skipped,
// a build error, out of memory) is reported with its error and the others go on. A stop request
// is honoured between stages and steps (a cold or warm start in progress runs to its end): the
// device in progress comes back with `cancelled` and the ones after it are left out (`cancel` may
// be null: never). Throws
// std::invalid_argument for a setup that cannot run (no device, a batch size or curve length out
// of range, a network that cannot be built, named).
std::vector<DeviceComparison> compare_devices(const ComparisonSetup& setup, const ComparisonEvents& events,
                                              const std::atomic<bool>* cancel = nullptr,
                                              const ComparisonDeviceEvents& device_events = {});

// The synthetic batch the loss curve trains at `step` (the same on every device): images of
// `spec.input`'s shape, each its class's fixed random pattern with noise, so the network can
// learn them. Labels are class indices below `classes`.
struct SyntheticBatch {
    std::vector<float> images;  // batch x input, NCHW
    std::vector<int> labels;
};
SyntheticBatch comparison_batch(const model::NetworkSpec& spec, int classes, int batch_size, std::uint64_t seed,
                                int step);

}  // namespace bps::bench
