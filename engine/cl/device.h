#pragma once
// Discovery of every OpenCL platform and device, and the choice of the device to train on.
#include "engine/cl/opencl.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bps::cl {

// In the order of preference for the default device.
enum class DeviceKind { DiscreteGpu, IntegratedGpu, Accelerator, Cpu };

// "discrete GPU", "integrated GPU", "accelerator", "CPU"
std::string_view kind_name(DeviceKind kind);

struct DeviceInfo {
    std::size_t index = 0;  // position in discover_devices(), what --device INDEX refers to
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    std::string platform_name;
    std::string platform_version;
    std::string name;
    std::string vendor;
    DeviceKind kind = DeviceKind::Cpu;  // GPU with host-unified memory = integrated
    std::uint32_t compute_units = 0;
    std::uint32_t clock_mhz = 0;
    std::uint64_t global_memory_bytes = 0;
    std::uint64_t max_allocation_bytes = 0;
    std::uint64_t local_memory_bytes = 0;
    std::size_t max_work_group_size = 0;
    std::string opencl_c_version;  // e.g. "OpenCL C 1.2 pocl"
    std::string driver_version;
    bool fp16 = false;
    bool fp64 = false;
};

// Every device of every platform. Empty when no OpenCL platform is installed (the ICD loader
// reports CL_PLATFORM_NOT_FOUND_KHR); other failures throw ClError.
std::vector<DeviceInfo> discover_devices();

// Discrete GPU, then integrated GPU, then accelerator, then CPU; within a kind the most
// compute units. Requires a non-empty list.
std::size_t default_device_index(const std::vector<DeviceInfo>& devices);

// request: "" for the default, a decimal index, or a case-insensitive substring of the device
// name. Throws std::runtime_error naming the request and listing the devices when nothing fits.
std::size_t select_device(const std::vector<DeviceInfo>& devices, std::string_view request);

// The request the user made: the --device flag when given, else BACKPROP_DEVICE, else "".
std::string device_request(const std::optional<std::string>& flag);

}  // namespace bps::cl
