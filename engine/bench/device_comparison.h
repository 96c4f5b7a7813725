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
// Everything runs on the calling thread (the studio's worker thread); the events come on it.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/model/network_spec.h"
#include "engine/train/optimizer_settings.h"

namespace bps::bench {

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
};

struct ComparisonProgress {
    std::size_t device_position = 0;  // which of setup.devices (0-based)
    std::size_t device_count = 0;
    std::string device_name;
    std::string activity;  // "building kernels", "SGEMM 1024", "training steps", "loss curve 12 of 50", ...
    double fraction = 0;   // of the whole comparison, 0 to 1
};

struct DeviceComparison {
    device::DeviceDescription device;  // with its self-test state after this comparison
    std::string error;                 // the device could not be compared: why, naming it
    bool cancelled = false;            // stopped part-way: figures not reached are 0 or empty

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
};

struct ComparisonEvents {
    std::function<void(const ComparisonProgress&)> progress;
    std::function<void(const DeviceComparison&)> device_done;  // each device's result, as it ends
};

// Compares the devices of setup.devices one after another. A device that fails (gone, skipped,
// a build error, out of memory) is reported with its error and the others go on. A stop request
// is honoured between stages and steps (a cold or warm start in progress runs to its end): the
// device in progress comes back with `cancelled` and the ones after it are left out (`cancel` may
// be null: never). Throws
// std::invalid_argument for a setup that cannot run (no device, a batch size or curve length out
// of range, a network that cannot be built, named).
std::vector<DeviceComparison> compare_devices(const ComparisonSetup& setup, const ComparisonEvents& events,
                                              const std::atomic<bool>* cancel = nullptr);

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
