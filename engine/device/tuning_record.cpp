#include "engine/device/tuning_record.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/base/number_text.h"
#include "engine/device/device_record.h"
#include "kernels/embedded_kernels.h"

namespace bps::device {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* tuning_record_format = "backprop-studio-kernel-tuning";
constexpr int tuning_record_version = 1;

// The tunable kernels' sources: a tuning holds for the code that was timed.
const std::string& tuned_sources() {
    static const std::string sources =
        std::string(kernels::embedded_source("conv2d")) + '\n' + std::string(kernels::embedded_source("gemm"));
    return sources;
}

json tuning_json(const KernelTuning& tuning) {
    return {
        {"conv2d", {{"TM", tuning.conv.tm}, {"TN", tuning.conv.tn}, {"STEP", tuning.conv.step}}},
        {"gemm", {{"ROWS", tuning.gemm.rows}, {"DOT_ROWS", tuning.gemm.dot_rows}, {"DOT_COLS", tuning.gemm.dot_cols}}}};
}

KernelTuning tuning_from(const json& object) {
    KernelTuning tuning;
    const json& conv = object.at("conv2d");
    tuning.conv = {conv.at("TM").get<int>(), conv.at("TN").get<int>(), conv.at("STEP").get<int>()};
    const json& gemm = object.at("gemm");
    tuning.gemm = {gemm.at("ROWS").get<int>(), gemm.at("DOT_ROWS").get<int>(), gemm.at("DOT_COLS").get<int>()};
    return tuning;
}

// Only a variant the tuner could have chosen: a hand-edited record must not reach the compiler
// with tiles the kernels were never checked with.
bool known(const KernelTuning& tuning) {
    for (const DeviceKind kind : {DeviceKind::Cpu, DeviceKind::DiscreteGpu}) {
        const std::vector<KernelTuning> candidates = tuning_candidates(kind);
        if (std::find(candidates.begin(), candidates.end(), tuning) != candidates.end()) return true;
    }
    return false;
}

std::string record_text(const DeviceDescription& device, const TuningRecord& record) {
    json timed = json::array();
    for (const VariantTime& variant : record.timed)
        timed.push_back({{"tuning", tuning_json(variant.tuning)},
                         {"milliseconds", std::isfinite(variant.milliseconds) ? json(variant.milliseconds) : json()},
                         {"error", variant.error}});
    return device_record_text(tuning_record_format, tuning_record_version, device,
                              {{"date", record.date},
                               {"chosen", tuning_json(record.chosen)},
                               {"timed", timed},
                               {"untimed", record.untimed},
                               {"today_timed_twice", record.today_timed_twice},
                               {"seconds", record.seconds},
                               {"shared_build_seconds", record.shared_build_seconds}});
}
}  // namespace

double TuningRecord::speedup() const {
    const auto chosen_time = std::find_if(timed.begin(), timed.end(),
                                          [this](const VariantTime& variant) { return variant.tuning == chosen; });
    if (timed.empty() || chosen_time == timed.end() || !(timed.front().milliseconds > 0) ||
        !(chosen_time->milliseconds > 0))
        return 1.0;
    return timed.front().milliseconds / chosen_time->milliseconds;
}

std::string TuningRecord::summary(DeviceKind kind) const {
    const std::string how = timed.empty() || chosen == timed.front().tuning
                                ? "the default, fastest"
                                : session::format_fixed(speedup(), 2) + "x the default";
    return chosen.describe(kind) + ": " + how + " (" + std::to_string(timed.size()) + " of " +
           std::to_string(timed.size() + untimed) + " variants timed in " + session::format_fixed(seconds, 1) + " s)";
}

fs::path tuning_record_path(const fs::path& cache_root, const DeviceDescription& device) {
    return device_record_path(cache_root, "tuning", device, tuned_sources(), "kernel-tuning");
}

std::optional<TuningRecord> read_tuning(const fs::path& cache_root, const DeviceDescription& device) {
    const std::optional<json> record =
        read_device_record(tuning_record_path(cache_root, device), tuning_record_format, tuning_record_version, device);
    if (!record) return std::nullopt;
    try {
        TuningRecord result;
        result.chosen = tuning_from(record->at("chosen"));
        for (const json& variant : record->at("timed")) {
            const json& time = variant.at("milliseconds");
            result.timed.push_back({tuning_from(variant.at("tuning")),
                                    time.is_number() ? time.get<double>() : std::numeric_limits<double>::quiet_NaN(),
                                    variant.at("error").get<std::string>()});
        }
        result.untimed = record->at("untimed").get<std::size_t>();
        result.today_timed_twice = record->at("today_timed_twice").get<bool>();
        result.seconds = record->at("seconds").get<double>();
        result.shared_build_seconds = record->at("shared_build_seconds").get<double>();
        result.date = record->at("date").get<std::string>();
        if (!known(result.chosen) || result.timed.empty()) return std::nullopt;
        return result;
    } catch (const json::exception&) {
        return std::nullopt;  // damaged: tuned again
    }
}

bool store_tuning(const fs::path& cache_root, const DeviceDescription& device, const TuningRecord& record) {
    return store_device_record(tuning_record_path(cache_root, device), record_text(device, record));
}

std::optional<TuningRecord> keep_tuning(const fs::path& cache_root, const DeviceDescription& device,
                                        const TuningRecord& record) {
    if (std::optional<TuningRecord> theirs = read_tuning(cache_root, device)) return theirs;
    const fs::path path = tuning_record_path(cache_root, device);
    // Written whole under a name of this process's own, then linked to the record's name: a link
    // is never made over an existing file, so the first process to finish keeps its record.
    const fs::path own = path.string() + ".tmp-" + std::to_string(std::random_device{}());
    if (!store_device_record(own, record_text(device, record))) return std::nullopt;
    std::error_code linked, ignored;
    fs::create_hard_link(own, path, linked);
    fs::remove(own, ignored);
    if (!linked) return record;
    return read_tuning(cache_root, device);  // another process's, or nothing where links fail
}

void fill_tuning_state(const fs::path& cache_root, DeviceDescription& device) {
    const std::optional<TuningRecord> record = read_tuning(cache_root, device);
    device.tuning = record ? record->chosen : KernelTuning{};
    device.tuning_summary = record ? record->summary(device.kind) : std::string();
}

}  // namespace bps::device
