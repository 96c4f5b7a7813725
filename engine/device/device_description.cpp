#include "engine/device/device_description.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace bps::device {

namespace {
std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}
}  // namespace

std::string_view self_test_state_name(SelfTestState state) {
    switch (state) {
        case SelfTestState::passed:
            return "passed";
        case SelfTestState::wrong_results:
            return "wrong results";
        case SelfTestState::not_run:
            break;
    }
    return "not run";
}

std::string_view kind_name(DeviceKind kind) {
    switch (kind) {
        case DeviceKind::DiscreteGpu:
            return "discrete GPU";
        case DeviceKind::IntegratedGpu:
            return "integrated GPU";
        case DeviceKind::Accelerator:
            return "accelerator";
        case DeviceKind::Cpu:
            return "CPU";
    }
    return "unknown";
}

std::string no_opencl_help() {
    std::string text =
        "No OpenCL platform was found, so Backprop Studio has no device to train on.\n"
        "Install an OpenCL driver:\n";
#if defined(_WIN32)
    text += "  Windows: install your GPU vendor's driver (Intel, AMD or NVIDIA); it includes OpenCL.\n";
#elif defined(__APPLE__)
    text += "  macOS: OpenCL is built into the system; check that OpenCL.framework is present.\n";
#else
    text +=
        "  Linux: install your GPU vendor's OpenCL ICD package (intel-opencl-icd, mesa-opencl-icd,\n"
        "  nvidia-opencl-icd), or train on the CPU with PoCL: sudo apt-get install pocl-opencl-icd\n"
        "  (drivers register in /etc/OpenCL/vendors; OCL_ICD_VENDORS overrides that folder).\n";
#endif
    return text;
}

NoDeviceError::NoDeviceError() : std::runtime_error(no_opencl_help()) {}

bool is_pocl(const DeviceDescription& device) {
    return device.platform_name.find("Portable Computing Language") != std::string::npos;
}

std::size_t default_device_index(const std::vector<DeviceDescription>& devices) {
    if (devices.empty()) throw NoDeviceError();
    const auto better = [](const DeviceDescription& a, const DeviceDescription& b) {
        if (a.skipped.empty() != b.skipped.empty()) return a.skipped.empty();
        const bool a_wrong = a.self_test == SelfTestState::wrong_results,
                   b_wrong = b.self_test == SelfTestState::wrong_results;
        if (a_wrong != b_wrong) return !a_wrong;
        if (a.kind != b.kind) return a.kind < b.kind;
        return a.compute_units > b.compute_units;
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < devices.size(); ++i)
        if (better(devices[i], devices[best])) best = i;
    return best;
}

std::size_t select_device(const std::vector<DeviceDescription>& devices, std::string_view request) {
    const std::size_t chosen = request.empty() ? default_device_index(devices) : find_device(devices, request);
    const DeviceDescription& device = devices[chosen];
    if (!device.skipped.empty())
        throw std::runtime_error((request.empty() ? "every OpenCL device is skipped; device " : "device ") +
                                 std::to_string(device.index) + " (" + device.name + ") is skipped: " + device.skipped);
    if (request.empty() && device.self_test == SelfTestState::wrong_results)
        throw std::runtime_error("no OpenCL device is left to choose by default: " + wrong_results_warning(device) +
                                 " (to train on it anyway, choose it by its index or name)");
    return chosen;
}

std::string wrong_results_warning(const DeviceDescription& device) {
    if (device.self_test != SelfTestState::wrong_results) return {};
    return "device " + std::to_string(device.index) + " (" + device.name + ", driver " + device.driver_version +
           ") computed wrong results in its self-test: " + device.self_test_summary +
           ". Training on it gives wrong weights: choose another device, or update its driver and run "
           "'backprop devices --check' again";
}

std::size_t find_device(const std::vector<DeviceDescription>& devices, std::string_view request) {
    if (devices.empty()) throw NoDeviceError();
    if (request.empty()) return default_device_index(devices);
    const bool is_number = std::all_of(request.begin(), request.end(), [](unsigned char c) { return std::isdigit(c); });
    if (is_number) {
        const unsigned long index = std::strtoul(std::string(request).c_str(), nullptr, 10);
        if (index < devices.size()) return index;
    } else {
        const std::string wanted = lower(request);
        for (const DeviceDescription& device : devices)
            if (lower(device.name).find(wanted) != std::string::npos) return device.index;
    }
    std::string message =
        "no OpenCL device matches '" + std::string(request) + "' (give an index or part of a name). The devices are:\n";
    for (const DeviceDescription& device : devices)
        message += "  " + std::to_string(device.index) + ": " + device.name + " (" + device.platform_name + ")\n";
    throw std::runtime_error(message);
}

std::string cpu_device_offer(const std::vector<DeviceDescription>& devices, std::size_t failing) {
    for (std::size_t i = 0; i < devices.size(); ++i)
        if (i != failing && devices[i].kind == DeviceKind::Cpu)
            return "the CPU device '" + devices[i].name + "' (device " + std::to_string(i) + ")";
    return {};
}

std::string device_request(const std::optional<std::string>& flag) {
    if (flag) return *flag;
    const char* env = std::getenv("BACKPROP_DEVICE");  // NOLINT(concurrency-mt-unsafe): read at start-up
    return env ? std::string(env) : std::string();
}

}  // namespace bps::device
