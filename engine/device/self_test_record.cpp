#include "engine/device/self_test_record.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/device/device_record.h"
#include "kernels/embedded_kernels.h"

namespace bps::device {

namespace fs = std::filesystem;

namespace {
constexpr const char* self_test_record_format = "backprop-studio-self-test";
constexpr int self_test_record_version = 1;

// Every kernel this program builds: a result holds only for the kernels that were tested.
const std::string& all_kernel_sources() {
    static const std::string sources = [] {
        std::string text;
        for (const kernels::EmbeddedKernelSource& kernel : kernels::embedded_sources()) {
            text += kernel.name;
            text += '\n';
            text += kernel.source;
        }
        return text;
    }();
    return sources;
}

nlohmann::json number(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

double number_from(const nlohmann::json& value) {
    return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

fs::path self_test_record_path(const fs::path& cache_root, const DeviceDescription& device) {
    return device_record_path(cache_root, "self-test", device, all_kernel_sources(), "self-test");
}

std::optional<SelfTestResult> read_self_test(const fs::path& cache_root, const DeviceDescription& device) {
    const std::optional<nlohmann::json> found = read_device_record(
        self_test_record_path(cache_root, device), self_test_record_format, self_test_record_version, device);
    if (!found) return std::nullopt;
    try {
        const nlohmann::json& record = *found;
        SelfTestResult result;
        for (const nlohmann::json& check : record.at("checks"))
            result.checks.push_back({check.at("name").get<std::string>(), number_from(check.at("error")),
                                     number_from(check.at("tolerance"))});
        result.error = record.at("error").get<std::string>();
        result.launch_us = number_from(record.at("launch_us"));
        result.launch_finish_us = number_from(record.at("launch_finish_us"));
        result.seconds = number_from(record.at("seconds"));
        result.date = record.at("date").get<std::string>();
        return result;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // damaged: tested again
    }
}

bool store_self_test(const fs::path& cache_root, const DeviceDescription& device, const SelfTestResult& result) {
    nlohmann::json checks = nlohmann::json::array();
    for (const SelfTestCheck& check : result.checks)
        checks.push_back(
            {{"name", check.name}, {"error", number(check.error)}, {"tolerance", number(check.tolerance)}});
    return store_device_record(self_test_record_path(cache_root, device),
                               device_record_text(self_test_record_format, self_test_record_version, device,
                                                  {{"date", result.date},
                                                   {"correct", result.correct()},
                                                   {"checks", checks},
                                                   {"error", result.error},
                                                   {"launch_us", number(result.launch_us)},
                                                   {"launch_finish_us", number(result.launch_finish_us)},
                                                   {"seconds", number(result.seconds)}}));
}

void set_self_test_state(DeviceDescription& device, const std::optional<SelfTestResult>& result) {
    // A test that could not finish says nothing.
    device.self_test = result ? result->state() : SelfTestState::not_run;
    device.self_test_summary = device.self_test == SelfTestState::not_run ? std::string() : result->summary();
}

void fill_self_test_state(const fs::path& cache_root, DeviceDescription& device) {
    set_self_test_state(device, read_self_test(cache_root, device));
}

}  // namespace bps::device
