#pragma once
// The device the engine tests run on: the default one (PoCL in CI), or BACKPROP_DEVICE.
#include "engine/cl/device.h"

namespace bps::test {

inline const cl::DeviceInfo& test_device() {
    static const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    return devices.at(cl::select_device(devices, cl::device_request(std::nullopt)));
}

}  // namespace bps::test
