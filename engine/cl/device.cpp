#include "engine/cl/device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "engine/cl/cache_location.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/error.h"
#include "engine/cl/opencl_loader.h"
#include "engine/device/self_test_record.h"
#include "engine/device/tuning_record.h"

namespace bps::cl {

namespace {

constexpr cl_int platform_not_found_khr = -1001;

// A string property of a platform or device; drivers include the terminating NUL in the size.
template <typename Object, typename Query>
std::string info_string(cl_int(CL_API_CALL* get_info)(Object, Query, std::size_t, void*, std::size_t*),
                        const char* call, Object object, Query what, const char* name) {
    std::size_t size = 0;
    check(get_info(object, what, 0, nullptr, &size), call, name);
    std::string text(size, '\0');
    check(get_info(object, what, size, text.data(), nullptr), call, name);
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what, const char* name) {
    return info_string(clGetPlatformInfo, "clGetPlatformInfo", platform, what, name);
}

std::string device_string(cl_device_id device, cl_device_info what, const char* name) {
    return info_string(clGetDeviceInfo, "clGetDeviceInfo", device, what, name);
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what, const char* name) {
    T value{};
    check(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo", name);
    return value;
}

device::DeviceKind classify(cl_device_type type, bool host_unified_memory) {
    if (type & CL_DEVICE_TYPE_GPU)
        return host_unified_memory ? device::DeviceKind::IntegratedGpu : device::DeviceKind::DiscreteGpu;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return device::DeviceKind::Accelerator;
    return device::DeviceKind::Cpu;
}

DeviceInfo describe(cl_platform_id platform, cl_device_id device) {
    DeviceInfo info;
    info.platform = platform;
    info.id = device;
    info.platform_name = platform_string(platform, CL_PLATFORM_NAME, "CL_PLATFORM_NAME");
    info.platform_version = platform_string(platform, CL_PLATFORM_VERSION, "CL_PLATFORM_VERSION");
    info.name = device_string(device, CL_DEVICE_NAME, "CL_DEVICE_NAME");
    info.vendor = device_string(device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR");
    info.kind = classify(
        device_value<cl_device_type>(device, CL_DEVICE_TYPE, "CL_DEVICE_TYPE"),
        device_value<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY, "CL_DEVICE_HOST_UNIFIED_MEMORY") == CL_TRUE);
    info.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS");
    info.clock_mhz = device_value<cl_uint>(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, "CL_DEVICE_MAX_CLOCK_FREQUENCY");
    info.global_memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE");
    info.max_allocation_bytes =
        device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    info.local_memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE");
    info.max_work_group_size =
        device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    info.opencl_c_version = device_string(device, CL_DEVICE_OPENCL_C_VERSION, "CL_DEVICE_OPENCL_C_VERSION");
    info.driver_version = device_string(device, CL_DRIVER_VERSION, "CL_DRIVER_VERSION");
    const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS");
    info.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
    // OpenCL 1.2 made fp64 optional core: a non-zero double config means it is there.
    info.fp64 =
        extensions.find("cl_khr_fp64") != std::string::npos ||
        device_value<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG, "CL_DEVICE_DOUBLE_FP_CONFIG") != 0;
    return info;
}

}  // namespace

std::vector<DeviceInfo> discover_devices() {
    // Without the loader (a delay-loaded OpenCL.dll that is absent) the first call would end the
    // process; no loader is no device, which the callers explain.
    if (!missing_opencl_loader().empty()) return {};
    cl_uint platform_count = 0;
    const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
    if (status == platform_not_found_khr || (status == CL_SUCCESS && platform_count == 0)) return {};
    check(status, "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(platform_count);
    check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

    std::vector<DeviceInfo> devices;
    for (cl_platform_id platform : platforms) {
        cl_uint device_count = 0;
        const cl_int found = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
        if (found == CL_DEVICE_NOT_FOUND) continue;  // a platform with no device is not an error
        check(found, "clGetDeviceIDs");
        std::vector<cl_device_id> ids(device_count);
        check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr), "clGetDeviceIDs");
        for (cl_device_id id : ids) {
            devices.push_back(describe(platform, id));
            devices.back().index = devices.size() - 1;
            devices.back().skipped = device_skip_reason(cache_root(), devices.back());
            device::fill_self_test_state(cache_root(), devices.back());
            device::fill_tuning_state(cache_root(), devices.back());
        }
    }
    return devices;
}

namespace {
std::vector<device::DeviceDescription> descriptions(const std::vector<DeviceInfo>& devices) {
    return {devices.begin(), devices.end()};
}
}  // namespace

std::size_t default_device_index(const std::vector<DeviceInfo>& devices) {
    return device::default_device_index(descriptions(devices));
}

std::size_t select_device(const std::vector<DeviceInfo>& devices, std::string_view request) {
    return device::select_device(descriptions(devices), request);
}

std::size_t find_device(const std::vector<DeviceInfo>& devices, std::string_view request) {
    return device::find_device(descriptions(devices), request);
}

}  // namespace bps::cl
