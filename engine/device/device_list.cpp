// list_devices() asks the OpenCL layer and keeps only the values, so callers above the device
// layer never hold a driver handle.
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/device_description.h"

namespace bps::device {

std::vector<DeviceDescription> list_devices() {
    std::vector<DeviceDescription> devices;
    for (const cl::DeviceInfo& info : cl::discover_devices()) devices.push_back(info);
    return devices;
}

void point_driver_caches_beside_ours() {
    cl::point_vendor_caches_into_cache_root();
}

}  // namespace bps::device
