#include "engine/session/device_check.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "engine/base/number_text.h"
#include "engine/bench/self_test.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/device/self_test_record.h"
#include "engine/ops/device_for_work.h"

namespace bps::device {

SelfTestResult check_device(const DeviceDescription& wanted) {
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const auto found = std::find_if(devices.begin(), devices.end(), [&](const cl::DeviceInfo& device) {
        return device.index == wanted.index && device.name == wanted.name;
    });
    if (found == devices.end()) throw NoDeviceError();
    const cl::DeviceInfo& device = *found;
    SelfTestResult result;
    try {
        DeviceForWork opened(device);
        result = run_self_test(opened.runtime());
    } catch (const std::exception& error) {
        result.error = error.what();
        result.date = session::format_utc_now();
        return result;
    }
    store_self_test(cl::cache_root(), device, result);
    return result;
}

}  // namespace bps::device
