#pragma once
// Discovery of every OpenCL platform and device, and the choice of the device to train on.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cl/opencl.h"
#include "engine/device/device_description.h"

namespace bps::cl {

// The value part (name, kind, memory, ...) is device::DeviceDescription, which is what code
// above the device layer sees; here it carries the driver's handles too.

struct DeviceInfo : device::DeviceDescription {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
};

// Every device of every platform. Empty when no OpenCL platform is installed (the ICD loader
// reports CL_PLATFORM_NOT_FOUND_KHR); other failures throw ClError.
std::vector<DeviceInfo> discover_devices();

// device::default_device_index and device::select_device over devices with handles.
std::size_t default_device_index(const std::vector<DeviceInfo>& devices);
std::size_t select_device(const std::vector<DeviceInfo>& devices, std::string_view request);
std::size_t find_device(const std::vector<DeviceInfo>& devices, std::string_view request);

}  // namespace bps::cl
