// backprop cache: where compiled kernels live, filling the cache, and clearing it.
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/commands.h"
#include "app/cli/terminal.h"
#include "engine/base/number_text.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/context.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/kernel_library.h"
#include "engine/device/tuning_record.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/ops/kernel_tuner.h"
#include "engine/session/build_check.h"
#include "engine/session/devices.h"

namespace bps::cli {

const char* const cache_help =
    "usage: backprop cache info [--json]\n"
    "       backprop cache warm [--device INDEX|NAME]\n"
    "       backprop cache clear\n"
    "\n"
    "Compiled OpenCL programs are kept on disk per device so that the next start needs no\n"
    "compiler. The folder is the platform's cache folder (on Linux ~/.cache/backprop-studio),\n"
    "or BACKPROP_CACHE_DIR when set; the drivers' own caches (PoCL, NVIDIA, Intel) go beside it.\n"
    "\n"
    "  info     the folder, the entries per device and their size\n"
    "  warm     build the engine's kernels for a device now, timing each program; a device\n"
    "           not tuned yet is tuned first: its kernels' tile variants timed, the fastest kept\n"
    "  clear    delete every cached program, and the drivers' caches kept beside them (and\n"
    "           PoCL's in POCL_CACHE_DIR when you set it); refused while another backprop\n"
    "           process builds or uses kernels, which it names\n";

namespace {

int cache_info(Arguments& arguments) {
    const bool as_json = arguments.take_flag("--json");
    arguments.expect_nothing_left();
    const cl::CacheInfo info = cl::KernelCache(cl::kernel_cache_dir()).info();
    if (as_json) {
        nlohmann::json devices = nlohmann::json::array();
        for (const cl::CacheDeviceUsage& device : info.devices)
            devices.push_back({{"device", device.device_name},
                               {"driver_version", device.driver_version},
                               {"entries", device.entries},
                               {"bytes", device.bytes}});
        std::cout << nlohmann::json{{"location", info.dir.string()},
                                    {"entries", info.entries},
                                    {"bytes", info.bytes},
                                    {"size_cap_bytes", info.size_cap_bytes},
                                    {"devices", devices}}
                         .dump(2)
                  << "\n";
        return exit_ok;
    }
    std::cout << "kernel cache: " << info.dir.string() << "\n"
              << session::format_count(info.entries, "program") << ", " << session::format_bytes(info.bytes) << " of "
              << session::format_bytes(info.size_cap_bytes) << " (least recently used are removed beyond that)\n";
    for (const cl::CacheDeviceUsage& device : info.devices)
        std::cout << "  " << device.device_name << " (driver " << device.driver_version
                  << "): " << session::format_count(device.entries, "program") << ", "
                  << session::format_bytes(device.bytes) << "\n";
    return exit_ok;
}

// Times the kernels' tile variants on the device (ops/kernel_tuner.h), says what each took, and
// keeps the winner for the device from now on.
void tune(cl::DeviceInfo& device) {
    std::cout << "tuning the engine's kernels for " << device.name << "\n";
    device::TuningRecord record = ops::tune_kernels(device);
    for (const device::VariantTime& variant : record.timed)
        std::cout << "  " << variant.tuning.describe(device.kind) << ": "
                  << (variant.error.empty() ? session::format_milliseconds(variant.milliseconds) + " a pass"
                                            : "failed: " + variant.error)
                  << (variant.tuning == record.chosen ? " (chosen)" : "") << "\n";
    if (record.untimed > 0)
        std::cout << "  " << session::format_count(record.untimed, "variant") << " left out to keep within "
                  << ops::tuning_budget_seconds(device) << " s\n";
    std::cout << "tuned in " << session::format_milliseconds(record.seconds * 1000) << ", beyond "
              << session::format_milliseconds(record.shared_build_seconds * 1000)
              << " building today's tiles (the driver's cache may keep them for the build below): "
              << record.summary(device.kind) << "\n";
    const std::optional<device::TuningRecord> kept = device::keep_tuning(cl::cache_root(), device, record);
    if (!kept)
        print_note("the tuning could not be stored in " +
                   device::tuning_record_path(cl::cache_root(), device).parent_path().string() +
                   ": it holds for this build only");
    else if (kept->chosen != record.chosen || kept->seconds != record.seconds) {
        std::cout << "another process tuned the device first, and its choice is kept: " << kept->summary(device.kind)
                  << "\n";
        record = *kept;
    }
    device.tuning = record.chosen;
    device.tuning_summary = record.summary(device.kind);
}

int cache_warm(Arguments& arguments) {
    const std::string request = device::device_request(arguments.take_option("--device"));
    arguments.expect_nothing_left();
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    cl::DeviceInfo device = devices.at(cl::select_device(devices, request));
    cl::DeviceUseMark in_use(cl::cache_root(), device);
    for (const std::string& note : in_use.notes()) print_note(note);
    if (!in_use.skipped().empty()) throw std::runtime_error(in_use.skipped());
    if (device.tuning_summary.empty()) tune(device);
    cl::KernelCache cache(cl::kernel_cache_dir());
    const cl::Context context(device);
    double total = 0;
    std::cout << "building the engine's kernels for " << device.name << "\n";
    for (const cl::ProgramBuild& build : cl::build_engine_programs(
             context, &cache, [&device](std::string_view name) { return device.tuning.build_options(name); })) {
        std::cout << "  " << build.name << ": " << (build.from_cache ? "loaded from cache" : "built from source")
                  << " in " << session::format_milliseconds(build.milliseconds) << "\n";
        if (!build.cache_note.empty()) print_note(build.cache_note);
        total += build.milliseconds;
    }
    in_use.built();
    const cl::CacheStats& stats = cache.stats();
    std::cout << "total " << session::format_milliseconds(total) << ": " << stats.hits << " from cache, "
              << stats.misses << " built, " << stats.rejected << " damaged entries replaced\n";
    if (!cache.last_error().empty())
        std::cout << "note: the cache could not be written: " << cache.last_error() << "\n";
    return exit_ok;
}

// The crash guard's check (engine/session/build_check.h), not in the help: builds every program for
// the device in this separate process, without a use mark (its parent holds the guard), and says
// when it starts and when it is done, so that its parent can tell a death in the build.
int cache_check_build(Arguments& arguments) {
    const std::string request = device::device_request(arguments.take_option("--device"));
    arguments.expect_nothing_left();
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& device = devices.at(cl::find_device(devices, request));
    cl::KernelCache cache(cl::kernel_cache_dir());
    const cl::Context context(device);
    std::cout << device::check_build_started << std::endl;
    (void)cl::build_engine_programs(context, &cache,
                                    [&device](std::string_view name) { return device.tuning.build_options(name); });
    std::cout << device::check_build_finished << std::endl;
    return exit_ok;
}

int cache_clear(Arguments& arguments) {
    arguments.expect_nothing_left();
    for (const std::string& line : device::clear_kernel_caches()) std::cout << line << "\n";
    return exit_ok;
}

}  // namespace

int run_cache(Arguments& arguments) {
    const std::optional<std::string> action = arguments.take_word();
    if (!action) throw UsageError("say what to do: info, warm or clear");
    if (*action == "info") return cache_info(arguments);
    if (*action == "warm") return cache_warm(arguments);
    if (*action == "clear") return cache_clear(arguments);
    if (*action == "check-build") return cache_check_build(arguments);
    throw UsageError("unknown cache action '" + *action + "'");
}

}  // namespace bps::cli
