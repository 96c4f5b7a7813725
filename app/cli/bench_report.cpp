#include "app/cli/bench_report.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/padded.h"
#include "engine/base/build_info.h"
#include "engine/base/number_text.h"
#include "engine/bench/comparison_details.h"

namespace bps::cli {

namespace {
// Three significant figures at most: "0.61", "14.2", "1,234".
std::string short_number(double value) {
    if (value >= 1000) return session::format_thousands(static_cast<std::uint64_t>(std::llround(value)));
    if (value >= 100) return session::format_fixed(value, 0);
    if (value >= 10) return session::format_fixed(value, 1);
    return session::format_fixed(value, 2);
}

std::string percent(const std::optional<double>& fraction) {
    if (!fraction) return "-";
    return *fraction < 0.01 ? session::format_fixed(100 * *fraction, 1) + "%"
                            : session::format_fixed(100 * *fraction, 0) + "%";
}

std::string seconds_text(const std::optional<double>& seconds) {
    return seconds ? session::format_milliseconds(1000 * *seconds) : "-";
}

// A table cell: the text padded to its column, then the space that separates it from the next.
std::string cell(const std::string& text, std::size_t width, bool right = false) {
    return padded(text, width, right) + " ";
}

std::string device_heading(const device::DeviceDescription& device) {
    return "device " + std::to_string(device.index) + ": " + device.name + " (" +
           std::string(device::kind_name(device.kind)) + ", " + device.platform_name + ", driver " +
           device.driver_version + ")";
}

nlohmann::json optional_json(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json device_fields(const device::DeviceDescription& device) {
    return {{"engine", engine_name()},          {"device", device.name},
            {"device_index", device.index},     {"device_kind", std::string(device::kind_name(device.kind))},
            {"platform", device.platform_name}, {"driver", device.driver_version}};
}

// "2.31 2.25 ... 0.41": every step's loss, as short as it reads.
std::string loss_list(const std::vector<double>& losses) {
    std::string text;
    for (const double loss : losses) {
        if (!text.empty()) text += ' ';
        text += session::format_fixed(loss, 3);
    }
    return text;
}
}  // namespace

BenchEntry bench_entry(const bench::DeviceComparison& result, const std::string& project) {
    BenchEntry entry;
    entry.net = result.network_name;
    entry.project = project;
    entry.batch = result.batch_size;
    entry.error = result.error;
    entry.losses = result.losses;
    if (result.details) {
        entry.timing = result.details->timing;
        entry.first_batch = result.details->first_batch;
        entry.work = result.details->work;
    }
    return entry;
}

bench::StepRates step_rates(const BenchEntry& entry, const std::optional<bench::DeviceMicrobenchmarks>& micro) {
    if (!entry.timing) return {};
    return bench::step_rates(entry.work, entry.batch, entry.timing->images_per_s,
                             micro ? micro->best_gflops_per_s() : 0, micro ? micro->copy_gb_per_s : 0);
}

std::string engine_name() {
    const std::string version = session::program_version();  // "0.1.0 (git ...)"
    return "backprop-studio-" + version.substr(0, version.find(' '));
}

void print_device_table(std::ostream& out, const DeviceBench& result, bool per_layer) {
    out << "\n" << device_heading(result.device) << "\n";
    if (!result.error.empty()) {
        out << "  failed: " << result.error << "\n";
        return;
    }
    if (result.micro) {
        const bench::DeviceMicrobenchmarks& micro = *result.micro;
        out << "  copy bandwidth " << short_number(micro.copy_gb_per_s) << " GB/s ("
            << session::format_bytes(micro.copy_bytes) << " buffers); kernel launch " << short_number(micro.enqueue_us)
            << " us, with the wait " << short_number(micro.enqueue_finish_us) << " us\n  SGEMM";
        for (const bench::SgemmRate& rate : micro.sgemm) {
            out << "  " << rate.size << ": " << short_number(rate.gflops_per_s) << " GFLOP/s";
            if (rate.max_relative_error > bench::sgemm_tolerance)
                out << " (WRONG RESULTS: relative error " << rate.max_relative_error << ")";
        }
        out << "\n";
    }
    out << "\n  " << cell("net", 14) << cell("batch", 6, true) << cell("images/s", 11, true) << cell("step", 9, true)
        << cell("first batch cold / warm", 25, true) << cell("memory", 10, true) << cell("launches/step", 19, true)
        << cell("GFLOP/s", 9, true) << cell("of SGEMM", 9, true) << cell("GB/s", 8, true) << cell("of copy", 8, true)
        << "\n";
    for (const BenchEntry& entry : result.entries) {
        out << "  " << cell(entry.net, 14) << cell(std::to_string(entry.batch), 6, true);
        if (!entry.timing) {
            out << "  failed: " << entry.error << "\n";
            continue;
        }
        const bench::StepTiming& timing = *entry.timing;
        const bench::StepRates rates = step_rates(entry, result.micro);
        std::string first = "-";
        if (entry.first_batch)
            first = entry.first_batch->error.empty() || entry.first_batch->warm_seconds
                        ? seconds_text(entry.first_batch->cold_seconds) + " / " +
                              seconds_text(entry.first_batch->warm_seconds)
                        : "failed";
        out << cell(session::format_thousands(static_cast<std::uint64_t>(std::llround(timing.images_per_s))), 11, true)
            << cell(session::format_milliseconds(timing.step_ms), 9, true) << cell(first, 25, true)
            << cell(session::format_bytes(timing.device_bytes), 10, true)
            << cell(std::to_string(timing.kernels_per_step) + " + " + std::to_string(timing.gemms_per_step) + " GEMMs",
                    19, true)
            << cell(short_number(rates.gflops_per_s), 9, true) << cell(percent(rates.of_sgemm_peak), 9, true)
            << cell(short_number(rates.gb_per_s), 8, true) << cell(percent(rates.of_bandwidth), 8, true) << "\n";
        if (entry.first_batch && !entry.first_batch->error.empty())
            out << "    first batch: " << entry.first_batch->error << "\n";
        if (!entry.error.empty()) out << "    failed: " << entry.error << "\n";
        if (per_layer) {
            for (const model::LayerTiming& layer : timing.layers) {
                out << "      " << cell(layer.name, 22);
                if (!layer.fused_into.empty())
                    out << "    runs inside " << layer.fused_into << "\n";
                else
                    out << cell(session::format_milliseconds(layer.forward_ms), 10, true)
                        << cell(session::format_milliseconds(layer.backward_ms), 10, true) << "\n";
            }
        }
        // Below the layers: docs/performance/ scripts read a row and its layers under the heading.
        if (!entry.losses.empty())
            out << "    loss curve, " << entry.losses.size() << " batches: " << loss_list(entry.losses) << "\n";
    }
}

void print_side_by_side(std::ostream& out, const std::vector<DeviceBench>& results) {
    if (results.size() < 2) return;
    out << "\nimages/s side by side\n  " << cell("net", 14) << cell("batch", 6, true);
    for (const DeviceBench& result : results) out << cell("device " + std::to_string(result.device.index), 12, true);
    out << "\n";
    // Every device ran the same list of entries, so rows line up by position.
    const std::vector<BenchEntry>* rows = nullptr;
    for (const DeviceBench& result : results)
        if (!rows || result.entries.size() > rows->size()) rows = &result.entries;
    for (std::size_t row = 0; rows && row < rows->size(); ++row) {
        out << "  " << cell((*rows)[row].net, 14) << cell(std::to_string((*rows)[row].batch), 6, true);
        for (const DeviceBench& result : results) {
            const bool ran = row < result.entries.size() && result.entries[row].timing;
            out << cell(ran ? session::format_thousands(
                                  static_cast<std::uint64_t>(std::llround(result.entries[row].timing->images_per_s)))
                            : "failed",
                        12, true);
        }
        out << "\n";
    }
}

void print_device_json(std::ostream& out, const DeviceBench& result) {
    nlohmann::json line = device_fields(result.device);
    line["record"] = "device";
    if (!result.error.empty()) line["error"] = result.error;
    if (result.micro) {
        const bench::DeviceMicrobenchmarks& micro = *result.micro;
        nlohmann::json sgemm = nlohmann::json::array();
        for (const bench::SgemmRate& rate : micro.sgemm)
            sgemm.push_back({{"size", rate.size},
                             {"gflops_per_s", rate.gflops_per_s},
                             {"ms", rate.milliseconds},
                             {"repeats", rate.repeats},
                             {"max_relative_error", rate.max_relative_error},
                             {"correct", rate.max_relative_error <= bench::sgemm_tolerance}});
        line["copy_bytes"] = micro.copy_bytes;
        line["copy_gb_per_s"] = micro.copy_gb_per_s;
        line["sgemm"] = sgemm;
        line["sgemm_best_gflops_per_s"] = micro.best_gflops_per_s();
        line["enqueue_us"] = micro.enqueue_us;
        line["enqueue_finish_us"] = micro.enqueue_finish_us;
    }
    out << line.dump() << std::endl;  // a line a reader can use at once, and kept if the run is cut short
}

void print_entry_json(std::ostream& out, const DeviceBench& result, const BenchEntry& entry) {
    nlohmann::json line = device_fields(result.device);
    line["record"] = "training";
    line["net"] = entry.net;
    if (!entry.project.empty()) line["project"] = entry.project;
    line["batch"] = entry.batch;
    if (!entry.timing) {
        line["error"] = entry.error;
        out << line.dump() << std::endl;
        return;
    }
    const bench::StepTiming& timing = *entry.timing;
    const bench::StepRates rates = step_rates(entry, result.micro);
    line["steps"] = timing.steps;
    line["runs"] = timing.run_seconds.size();
    line["run_s"] = timing.run_seconds;
    line["images_per_s"] = timing.images_per_s;
    line["forward_ms"] = timing.forward_ms;
    line["forward_backward_ms"] = timing.forward_backward_ms;
    line["step_ms"] = timing.step_ms;
    line["first_step_ms"] = timing.first_step_ms;
    line["first_batch_cold_s"] = entry.first_batch ? optional_json(entry.first_batch->cold_seconds) : nullptr;
    line["first_batch_warm_s"] = entry.first_batch ? optional_json(entry.first_batch->warm_seconds) : nullptr;
    if (entry.first_batch && !entry.first_batch->error.empty()) line["first_batch_error"] = entry.first_batch->error;
    line["device_bytes"] = timing.device_bytes;
    line["kernels_per_step"] = timing.kernels_per_step;
    line["gemms_per_step"] = timing.gemms_per_step;
    line["flops_per_step"] = entry.work.flops;
    line["bytes_per_step"] = entry.work.bytes;
    line["step_gflops_per_s"] = rates.gflops_per_s;
    line["step_gb_per_s"] = rates.gb_per_s;
    line["fraction_of_sgemm_peak"] = optional_json(rates.of_sgemm_peak);
    line["fraction_of_bandwidth"] = optional_json(rates.of_bandwidth);
    if (!entry.error.empty()) line["error"] = entry.error;
    line["losses"] = entry.losses;
    if (!timing.layers.empty()) {
        nlohmann::json layers = nlohmann::json::array();
        for (const model::LayerTiming& layer : timing.layers) {
            nlohmann::json entry = {
                {"name", layer.name}, {"forward_ms", layer.forward_ms}, {"backward_ms", layer.backward_ms}};
            if (!layer.fused_into.empty()) entry["fused_into"] = layer.fused_into;
            layers.push_back(std::move(entry));
        }
        line["layers"] = layers;
    }
    out << line.dump() << std::endl;  // a line a reader can use at once, and kept if the run is cut short
}

}  // namespace bps::cli
