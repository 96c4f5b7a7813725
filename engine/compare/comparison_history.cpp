#include "engine/compare/comparison_history.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/base/atomic_file.h"
#include "engine/base/number_text.h"
#include "engine/device/device_json.h"

namespace bps::bench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* format_name = "backprop-device-comparisons";
constexpr int format_version = 1;

// JSON has no NaN or infinity: those are kept as null and read back as NaN.
json number(double value) {
    return std::isfinite(value) ? json(value) : json(nullptr);
}
double number_from(const json& value) {
    return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}
json optional_number(const std::optional<double>& value) {
    return value ? number(*value) : json(nullptr);
}
std::optional<double> optional_from(const json& object, const char* key) {
    if (!object.contains(key) || object.at(key).is_null()) return std::nullopt;
    return object.at(key).get<double>();
}

json comparison_json(const DeviceComparison& result) {
    const device::DeviceDescription& device = result.device;
    json losses = json::array();
    for (const double loss : result.losses) losses.push_back(number(loss));
    json object = device::device_json(device);
    object.update(json{{"error", result.error},
                       {"cancelled", result.cancelled},
                       {"images_per_s", number(result.images_per_s)},
                       {"step_ms", number(result.step_ms)},
                       {"cold_start_s", optional_number(result.cold_start_s)},
                       {"warm_start_s", optional_number(result.warm_start_s)},
                       {"start_error", result.start_error},
                       {"device_bytes", result.device_bytes},
                       {"kernels_per_step", result.kernels_per_step},
                       {"gemms_per_step", result.gemms_per_step},
                       {"copy_gb_per_s", number(result.copy_gb_per_s)},
                       {"sgemm_gflops_per_s", number(result.sgemm_gflops_per_s)},
                       {"step_gflops_per_s", number(result.step_gflops_per_s)},
                       {"step_gb_per_s", number(result.step_gb_per_s)},
                       {"of_sgemm_peak", optional_number(result.of_sgemm_peak)},
                       {"of_bandwidth", optional_number(result.of_bandwidth)},
                       {"losses", losses}});
    return object;
}

DeviceComparison comparison_from(const json& object) {
    DeviceComparison result;
    result.device = device::device_from_json(object);
    result.error = object.at("error").get<std::string>();
    result.cancelled = object.at("cancelled").get<bool>();
    result.images_per_s = number_from(object.at("images_per_s"));
    result.step_ms = number_from(object.at("step_ms"));
    result.cold_start_s = optional_from(object, "cold_start_s");
    result.warm_start_s = optional_from(object, "warm_start_s");
    result.start_error = object.at("start_error").get<std::string>();
    result.device_bytes = object.at("device_bytes").get<std::size_t>();
    result.kernels_per_step = object.at("kernels_per_step").get<std::size_t>();
    result.gemms_per_step = object.at("gemms_per_step").get<std::size_t>();
    result.copy_gb_per_s = number_from(object.at("copy_gb_per_s"));
    result.sgemm_gflops_per_s = number_from(object.at("sgemm_gflops_per_s"));
    result.step_gflops_per_s = number_from(object.at("step_gflops_per_s"));
    result.step_gb_per_s = number_from(object.at("step_gb_per_s"));
    result.of_sgemm_peak = optional_from(object, "of_sgemm_peak");
    result.of_bandwidth = optional_from(object, "of_bandwidth");
    for (const json& loss : object.at("losses")) result.losses.push_back(number_from(loss));
    return result;
}

json record_json(const ComparisonRecord& record) {
    json devices = json::array();
    for (const DeviceComparison& device : record.devices) devices.push_back(comparison_json(device));
    return {{"date", record.date},
            {"project", record.project},
            {"network", record.network},
            {"batch_size", record.batch_size},
            {"curve_batches", record.curve_batches},
            {"devices", devices}};
}

ComparisonRecord record_from(const json& object) {
    ComparisonRecord record;
    record.date = object.at("date").get<std::string>();
    record.project = object.at("project").get<std::string>();
    record.network = object.at("network").get<std::string>();
    record.batch_size = object.at("batch_size").get<int>();
    record.curve_batches = object.at("curve_batches").get<int>();
    for (const json& device : object.at("devices")) record.devices.push_back(comparison_from(device));
    return record;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string csv_number(double value) {
    if (!std::isfinite(value)) return "";
    std::ostringstream text;
    text.precision(8);
    text << value;
    return text.str();
}

std::string csv_number(const std::optional<double>& value) {
    return value ? csv_number(*value) : "";
}

}  // namespace

std::string ComparisonRecord::title() const {
    return date + " · " + network + " · batch " + std::to_string(batch_size) + " · " +
           session::format_count(devices.size(), "device");
}

ComparisonRecord make_comparison_record(const ComparisonSetup& setup, std::string project,
                                        std::vector<DeviceComparison> devices) {
    ComparisonRecord record;
    record.date = session::format_utc_now();
    record.project = std::move(project);
    record.network = setup.network_name;
    record.batch_size = setup.batch_size;
    record.curve_batches = setup.curve_batches;
    record.devices = std::move(devices);
    return record;
}

std::vector<ComparisonRecord> make_comparison_records(const ComparisonSetup& setup,
                                                      const std::vector<DeviceComparison>& results) {
    std::vector<ComparisonRecord> records;
    for (const PlannedRun& run : planned_runs(setup)) {
        std::vector<DeviceComparison> devices;
        for (const DeviceComparison& result : results)
            if (result.network_name == run.network.name && result.batch_size == run.batch_size)
                devices.push_back(result);
        if (devices.empty()) continue;  // cancelled before it
        ComparisonSetup one = setup;
        one.network_name = run.network.name;
        one.batch_size = run.batch_size;
        records.push_back(make_comparison_record(
            one, run.network.project.empty() ? "reference network" : run.network.name, std::move(devices)));
    }
    return records;
}

std::vector<ComparisonRecord> read_comparison_history(const fs::path& file) {
    std::error_code error;
    if (!fs::exists(file, error)) return {};
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ComparisonHistoryError(file.string() + ": cannot be opened for reading");
    std::vector<ComparisonRecord> records;
    try {
        const json document = json::parse(in);
        if (document.value("format", "") != format_name)
            throw ComparisonHistoryError(file.string() + ": is not a device comparison history");
        const int version = document.at("version").get<int>();
        if (version > format_version)
            throw ComparisonHistoryError(file.string() + ": was written by a newer Backprop Studio (format " +
                                         std::to_string(version) + "; this one reads " +
                                         std::to_string(format_version) + ")");
        for (const json& record : document.at("comparisons")) records.push_back(record_from(record));
    } catch (const json::exception& problem) {
        throw ComparisonHistoryError(file.string() + ": is damaged (" + problem.what() + ")");
    }
    return records;
}

void save_comparison_history(const fs::path& file, const std::vector<ComparisonRecord>& records) {
    json comparisons = json::array();
    const std::size_t first = records.size() > max_kept_comparisons ? records.size() - max_kept_comparisons : 0;
    for (std::size_t i = first; i < records.size(); ++i) comparisons.push_back(record_json(records[i]));
    const json document = {{"format", format_name}, {"version", format_version}, {"comparisons", comparisons}};
    try {
        std::error_code ignored;
        if (file.has_parent_path()) fs::create_directories(file.parent_path(), ignored);
        io::save_atomically(file, document.dump(1));
    } catch (const io::SaveProblem& problem) {
        throw ComparisonHistoryError(file.string() + ": cannot be saved: " + problem.what());
    }
}

std::vector<ComparisonRecord> add_to_comparison_history(const fs::path& file,
                                                        const std::vector<ComparisonRecord>& records, fs::path* aside) {
    std::vector<ComparisonRecord> history;
    try {
        history = read_comparison_history(file);
    } catch (const ComparisonHistoryError&) {
        const fs::path kept = keep_damaged_history(file);
        if (aside) *aside = kept;
    }
    history.insert(history.end(), records.begin(), records.end());
    save_comparison_history(file, history);
    if (history.size() > max_kept_comparisons)
        history.erase(history.begin(), history.end() - static_cast<std::ptrdiff_t>(max_kept_comparisons));
    return history;
}

fs::path keep_damaged_history(const fs::path& file) {
    for (int n = 1; n < 1000; ++n) {
        fs::path aside = file;
        aside += ".damaged-" + std::to_string(n);
        std::error_code error;
        if (fs::exists(aside, error)) continue;
        fs::rename(file, aside, error);
        if (error) throw ComparisonHistoryError(file.string() + ": cannot be moved aside: " + error.message());
        return aside;
    }
    throw ComparisonHistoryError(file.string() + ": cannot be moved aside: too many damaged copies beside it");
}

std::string comparison_csv(const std::vector<ComparisonRecord>& records) {
    std::string csv =
        "date,project,network,batch_size,loss_curve_batches,device_index,device,platform,driver_version,kind,"
        "self_test,images_per_s,step_ms,cold_start_s,warm_start_s,copy_gb_per_s,sgemm_gflops_per_s,"
        "step_gflops_per_s,step_gb_per_s,of_sgemm_peak,of_bandwidth,device_bytes,kernels_per_step,"
        "gemms_per_step,first_loss,last_loss,error\r\n";
    for (const ComparisonRecord& record : records)
        for (const DeviceComparison& result : record.devices) {
            const device::DeviceDescription& device = result.device;
            std::string error = result.error;
            if (error.empty() && result.cancelled) error = "cancelled";
            if (error.empty() && !result.start_error.empty()) error = "first batch: " + result.start_error;
            const std::vector<std::string> fields = {record.date,
                                                     record.project,
                                                     record.network,
                                                     std::to_string(record.batch_size),
                                                     std::to_string(record.curve_batches),
                                                     std::to_string(device.index),
                                                     device.name,
                                                     device.platform_name,
                                                     device.driver_version,
                                                     std::string(device::kind_name(device.kind)),
                                                     std::string(device::self_test_state_name(device.self_test)),
                                                     csv_number(result.images_per_s),
                                                     csv_number(result.step_ms),
                                                     csv_number(result.cold_start_s),
                                                     csv_number(result.warm_start_s),
                                                     csv_number(result.copy_gb_per_s),
                                                     csv_number(result.sgemm_gflops_per_s),
                                                     csv_number(result.step_gflops_per_s),
                                                     csv_number(result.step_gb_per_s),
                                                     csv_number(result.of_sgemm_peak),
                                                     csv_number(result.of_bandwidth),
                                                     std::to_string(result.device_bytes),
                                                     std::to_string(result.kernels_per_step),
                                                     std::to_string(result.gemms_per_step),
                                                     result.losses.empty() ? "" : csv_number(result.losses.front()),
                                                     result.losses.empty() ? "" : csv_number(result.losses.back()),
                                                     error};
            for (std::size_t i = 0; i < fields.size(); ++i) {
                if (i > 0) csv += ',';
                csv += csv_field(fields[i]);
            }
            csv += "\r\n";
        }
    return csv;
}

}  // namespace bps::bench
