#pragma once
// The device the engine tests run on: the default one (PoCL in CI), or BACKPROP_DEVICE.
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/self_test.h"
#include "engine/device/self_test_record.h"
#include "engine/session/device_check.h"

namespace bps::test {

inline const cl::DeviceInfo& test_device() {
    static const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    return devices.at(cl::select_device(devices, device::device_request(std::nullopt)));
}

// Runs the test device's self-test when the cache holds no result for it. A job runs the test
// before a device's first training, so a test that counts a job's launches, allocations or reads
// (to aim an injected fault) calls this first, or the count would depend on which test ran first.
inline void ensure_self_tested() {
    device::DeviceDescription device = test_device();
    device::fill_self_test_state(cl::cache_root(), device);
    if (device.self_test == device::SelfTestState::not_run) device::check_device(device);
}

}  // namespace bps::test
