#include "engine/session/device_warm_up.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "engine/base/number_text.h"
#include "engine/bench/self_test.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/self_test_record.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/ops/device_for_work.h"
#include "engine/ops/runtime.h"
#include "kernels/embedded_kernels.h"

namespace bps::session {

namespace {

// Thrown between two programs' builds when the warm-up is to stop, and caught below.
struct Stopped {};

// The device as discovery sees it now (with its stored self-test), matched by index and name.
cl::DeviceInfo current(const device::DeviceDescription& wanted) {
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const auto found = std::find_if(devices.begin(), devices.end(), [&](const cl::DeviceInfo& device) {
        return device.index == wanted.index && device.name == wanted.name;
    });
    if (found == devices.end()) throw device::NoDeviceError();
    return *found;
}

bool warm(const cl::DeviceInfo& device) {
    if (device.self_test == device::SelfTestState::not_run || device.tuning_summary.empty()) return false;
    const cl::KernelCache cache(cl::kernel_cache_dir());
    std::error_code error;
    // The key the runtime builds each program under: the tuning's definitions (ops/runtime.cpp).
    const std::vector<std::string_view> programs = ops::programs_for(device);
    return std::all_of(programs.begin(), programs.end(), [&](std::string_view program) {
        const cl::CacheKey key{std::string(kernels::embedded_source(program)),
                               device.tuning.build_options(program),
                               device.platform_name,
                               device.platform_version,
                               device.name,
                               device.driver_version};
        return std::filesystem::is_regular_file(cache.entry_path(key), error);
    });
}

}  // namespace

bool device_is_warm(const device::DeviceDescription& device) {
    return warm(current(device));
}

DeviceWarmUp warm_up_device(const device::DeviceDescription& wanted,
                            const std::function<void(const WarmUpProgress&)>& progress,
                            const std::function<bool()>& stop_requested) {
    const cl::DeviceInfo device = current(wanted);
    DeviceWarmUp result;
    result.programs = ops::programs_for(device).size();
    if (warm(device)) {
        result.was_warm = true;
        return result;
    }
    const auto tell = [&progress](WarmUpProgress report) {
        if (progress) progress(report);
    };
    const auto stop = [&stop_requested] { return stop_requested && stop_requested(); };
    tell({0, 0, false});  // opening the device: its caches checked, a context made
    const std::size_t programs = result.programs;
    std::optional<device::DeviceForWork> opened;
    try {
        // The device's in-use mark goes with `opened` as it unwinds: a stop is no crash.
        opened.emplace(device,
                       device::DeviceOpening{[&result](const std::string& note) { result.notes.push_back(note); },
                                             [&tell, &stop, programs](std::size_t done, std::size_t) {
                                                 tell({done, programs, false});
                                                 if (done < programs && stop()) throw Stopped{};
                                             },
                                             ops::CacheWrites::all,
                                             [&tell, &stop](std::size_t done, std::size_t total) {
                                                 tell({done, total, false, true});
                                                 if (done < total && stop()) throw Stopped{};
                                             }});
    } catch (const Stopped&) {
        result.stopped = true;
        return result;
    }
    result.tuning = opened->tuned();
    if (device.self_test != device::SelfTestState::not_run) return result;
    if (stop()) {
        result.stopped = true;
        return result;
    }
    tell({result.programs, result.programs, true});
    // As check_device does: a test that could not finish is said, and not stored.
    try {
        result.self_test = device::run_self_test(opened->runtime());
    } catch (const std::exception& error) {
        device::SelfTestResult failed;
        failed.error = error.what();
        failed.date = format_utc_now();
        result.self_test = failed;
        return result;
    }
    device::store_self_test(cl::cache_root(), device, *result.self_test);
    return result;
}

}  // namespace bps::session
