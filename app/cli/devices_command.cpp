// backprop devices: the table of OpenCL devices with the one training would use marked.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli/commands.h"
#include "app/cli/device_table.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/error.h"
#include "engine/device/device_json.h"
#include "engine/device/self_test.h"
#include "engine/session/device_check.h"

namespace bps::cli {

const char* const devices_help =
    "usage: backprop devices [--json] [--device INDEX|NAME] [--enable INDEX|NAME] [--check]\n"
    "\n"
    "Lists every OpenCL device of every platform. '*' marks the device training uses: the\n"
    "best by default (discrete GPU, integrated GPU, accelerator, then CPU; most compute units\n"
    "first), or the one chosen by --device or the BACKPROP_DEVICE environment variable.\n"
    "The self-test column shows what each device's self-test found with its driver: a device\n"
    "that computed wrong results ('WRONG') is never the default. Below the table, each device's\n"
    "kernel tiles: what its tuning chose at the warm-up, against the source's own.\n"
    "\n"
    "  --json            print the same facts as JSON\n"
    "  --device D        mark device D (an index or part of its name) as chosen\n"
    "  --enable D        use device D again after it was skipped: a device is skipped when the\n"
    "                    program died twice while building kernels for it, also after its caches\n"
    "                    were cleared, and a build in a separate process died too (its driver's\n"
    "                    compiler crashed)\n"
    "  --check           run the self-test now (about a second per device) on device D given with\n"
    "                    --device, or on every device: an SGEMM and one training step of a small\n"
    "                    network against the C++ references, and the launch latency. It also runs\n"
    "                    by itself before a device's first training. Exit status 1 when a device\n"
    "                    computed wrong results or could not finish\n";

namespace {

// Runs the self-test on each device and prints what it found; false when one was wrong or failed.
bool check_devices(const std::vector<cl::DeviceInfo>& devices, const std::vector<std::size_t>& which,
                   std::ostream& out) {
    bool all_correct = true;
    for (std::size_t index : which) {
        const cl::DeviceInfo& device = devices.at(index);
        std::cerr << "testing device " << device.index << " (" << device.name << ")..." << std::endl;
        const device::SelfTestResult result = device::check_device(device);
        all_correct = all_correct && result.correct();
        out << "device " << device.index << " (" << device.name << "): "
            << (result.correct()       ? ""
                : result.error.empty() ? "WRONG RESULTS: "
                                       : "")
            << result.summary() << "\n";
    }
    return all_correct;
}

}  // namespace

int run_devices(Arguments& arguments) {
    const bool as_json = arguments.take_flag("--json");
    const std::string request = device::device_request(arguments.take_option("--device"));
    const std::optional<std::string> enable = arguments.take_option("--enable");
    const bool check = arguments.take_flag("--check");
    arguments.expect_nothing_left();

    std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    if (devices.empty()) {
        if (as_json)
            std::cout << nlohmann::json{{"devices", nlohmann::json::array()}, {"chosen", nullptr}, {"default", nullptr}}
                             .dump(2)
                      << "\n";
        throw device::NoDeviceError();
    }
    if (enable) {
        const cl::DeviceInfo& device = devices.at(cl::find_device(devices, *enable));
        const bool was_skipped = cl::enable_device(cl::cache_root(), device);
        std::cout << "device " << device.index << " (" << device.name << ")"
                  << (was_skipped ? " is used again" : " was not skipped") << "\n";
        return exit_ok;
    }
    bool checks_correct = true;
    if (check) {
        std::vector<std::size_t> which;
        if (!request.empty())
            which.push_back(cl::find_device(devices, request));
        else
            for (const cl::DeviceInfo& device : devices) which.push_back(device.index);
        // With --json, stdout holds only the JSON.
        checks_correct = check_devices(devices, which, as_json ? std::cerr : std::cout);
        devices = cl::discover_devices();  // with the results just stored
        if (!as_json) std::cout << "\n";
    }
    // Every device may be skipped: the table still shows them, and why.
    const std::size_t best = cl::default_device_index(devices);
    std::optional<std::size_t> chosen;
    std::string unusable;
    try {
        chosen = cl::select_device(devices, request);
    } catch (const std::runtime_error& error) {
        // A request that names no device is an error (find_device throws it); a skipped device,
        // asked for or the default when all are, is shown below the table with why.
        const cl::DeviceInfo& asked = devices.at(cl::find_device(devices, request));
        if (asked.skipped.empty() && asked.self_test != device::SelfTestState::wrong_results) throw;
        unusable = error.what();
    }

    if (as_json) {
        nlohmann::json list = nlohmann::json::array();
        for (const cl::DeviceInfo& device : devices) list.push_back(device::device_json(device));
        std::cout << nlohmann::json{{"devices", list},
                                    {"default", devices[best].skipped.empty() &&
                                                        devices[best].self_test != device::SelfTestState::wrong_results
                                                    ? nlohmann::json(best)
                                                    : nullptr},
                                    {"chosen", chosen ? nlohmann::json(*chosen) : nullptr}}
                         .dump(2)
                  << "\n";
        return checks_correct ? exit_ok : exit_failure;
    }
    std::cout << device_table(std::vector<device::DeviceDescription>(devices.begin(), devices.end()), chosen);
    std::cout << "\n";
    for (const cl::DeviceInfo& device : devices)
        if (device.skipped.empty())
            std::cout << "  device " << device.index << " kernels: "
                      << (device.tuning_summary.empty() ? device.tuning.describe(device.kind) +
                                                              " (not tuned yet: `backprop cache warm` or the studio's "
                                                              "warm-up tunes them)"
                                                        : device.tuning_summary)
                      << "\n";
    for (const cl::DeviceInfo& device : devices)
        if (!device.skipped.empty())
            std::cout << "- device " << device.index << " (" << device.name << ") is skipped: " << device.skipped
                      << "\n";
    for (const cl::DeviceInfo& device : devices)
        if (device.skipped.empty() && device.self_test == device::SelfTestState::wrong_results)
            std::cout << "! " << device::wrong_results_warning(device) << "\n";
    if (!chosen)
        std::cout << unusable << "\n";
    else if (request.empty())
        std::cout << "* default device: " << devices[*chosen].name << "\n";
    else
        std::cout << "* chosen by request '" << request << "': " << devices[*chosen].name << " (the default would be "
                  << best << ")\n";
    return checks_correct ? exit_ok : exit_failure;
}

}  // namespace bps::cli
