// list_devices() asks the OpenCL layer and keeps only the values, so callers above the device
// layer never hold a driver handle.
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/kernel_cache.h"
#include "engine/device/device_description.h"
#include "engine/session/number_text.h"

namespace bps::device {

std::vector<DeviceDescription> list_devices() {
    std::vector<DeviceDescription> devices;
    for (const cl::DeviceInfo& info : cl::discover_devices()) devices.push_back(info);
    return devices;
}

void point_driver_caches_beside_ours() {
    cl::point_vendor_caches_into_cache_root();
}

std::vector<std::string> clear_kernel_caches() {
    cl::KernelCache cache(cl::kernel_cache_dir());
    const std::size_t removed = cache.clear();
    std::vector<std::string> lines{"removed " + session::format_count(removed, "cached program") + " from " +
                                   cache.dir().string()};
    // The drivers' caches that this program points beside its own go too: a damaged one (PoCL
    // aborts on a broken file of its own) would otherwise survive every clear.
    for (const cl::DriverCache& driver : cl::driver_caches(cl::cache_root()))
        if (cl::clear_driver_caches({driver}) > 0)
            lines.push_back("emptied " + driver.driver + "'s cache in " + driver.folder.string());
    return lines;
}

bool enable_device(const DeviceDescription& device) {
    return cl::enable_device(cl::cache_root(), device);
}

}  // namespace bps::device
