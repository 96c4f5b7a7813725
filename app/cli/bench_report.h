#pragma once
// What `backprop bench` found on each device, and how it is shown: a table per device (and one
// side by side when there are several), or JSON lines whose field names match
// shared/bench/torch_reference.py's where the figure is the same (engine, device, net, batch,
// steps, images_per_s), so the two join on net and batch.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/compare/device_comparison.h"
#include "engine/bench/device_microbenchmarks.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/bench/step_timing.h"
#include "engine/bench/work_model.h"
#include "engine/device/device_description.h"

namespace bps::cli {

struct BenchEntry {
    std::string net;      // a reference network's name, or the project's file name
    std::string project;  // the project file as given; empty for a reference network
    int batch = 0;
    std::optional<bench::StepTiming> timing;  // none when it failed
    std::optional<bench::FirstBatchTimes> first_batch;
    bench::StepWork work;
    std::string error;           // why it failed, with the device's name
    std::vector<double> losses;  // the comparison's loss curve: each step's mean loss
};

// One planned run of the device comparison bench drives (with its details), as bench reports it.
BenchEntry bench_entry(const bench::DeviceComparison& result, const std::string& project);

struct DeviceBench {
    device::DeviceDescription device;
    std::optional<bench::DeviceMicrobenchmarks> micro;
    std::string error;  // the device could not be used at all (skipped, no context, a build failed)
    std::vector<BenchEntry> entries;
};

// The step's arithmetic and memory rates of an entry on its device (bench::step_rates).
bench::StepRates step_rates(const BenchEntry& entry, const std::optional<bench::DeviceMicrobenchmarks>& micro);

// "backprop-studio-0.1.0": the engine field of the JSON lines, as torch_reference.py's "torch-2.11".
std::string engine_name();

void print_device_table(std::ostream& out, const DeviceBench& result, bool per_layer);
// Images/s per network and batch, one column per device; only for two devices or more.
void print_side_by_side(std::ostream& out, const std::vector<DeviceBench>& results);
// One line for the device (record "device") and one per entry (record "training").
void print_device_json(std::ostream& out, const DeviceBench& result);
void print_entry_json(std::ostream& out, const DeviceBench& result, const BenchEntry& entry);

}  // namespace bps::cli
