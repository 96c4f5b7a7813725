// list_devices() asks the OpenCL layer and keeps only the values, so callers above the device
// layer never hold a driver handle.
#include "engine/session/devices.h"

#include "engine/base/number_text.h"
#include "engine/cl/cache_clearing.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/kernel_cache/kernel_cache.h"

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
    // Refuses, naming the process, while another one builds or uses kernels: the files would
    // vanish under it.
    const cl::CacheClearing clearing(cl::cache_root());
    cl::KernelCache cache(cl::kernel_cache_dir());
    const std::size_t removed = cache.clear();
    std::vector<std::string> lines{"removed " + session::format_count(removed, "cached program") + " from " +
                                   cache.dir().string()};
    // The drivers' caches that this program points beside its own go too, and the one a user's
    // variable points the driver at instead: a damaged one (PoCL aborts on a broken file of its
    // own) would otherwise survive every clear.
    for (const cl::DriverCache& driver : cl::driver_caches_to_clear(cl::cache_root())) {
        const std::string advice = cl::driver_cache_advice(driver);
        std::error_code ignored;
        if (!advice.empty() && std::filesystem::exists(driver.folder, ignored))
            lines.push_back(driver.driver + "'s cache was set by you (" + driver.variable +
                            ") and is left alone: " + advice);
        else if (cl::clear_driver_caches({driver}) > 0)
            lines.push_back("emptied " + driver.driver + "'s cache in " + driver.folder.string() +
                            (driver.set_by_user ? " (set by " + driver.variable + ")" : ""));
    }
    return lines;
}

bool enable_device(const DeviceDescription& device) {
    return cl::enable_device(cl::cache_root(), device);
}

}  // namespace bps::device
