#pragma once
// The studio's "Test this device" (the Devices tab, `backprop devices --test`): a door over the
// self-test in engine/bench/self_test.h, with no OpenCL in this header.
#include "engine/device/self_test.h"

namespace bps::device {

// Runs the self-test on the device now (building its kernels first when they are not cached),
// stores the result and returns it. Throws NoDeviceError when the device is gone. A device that
// fails while testing (a build error, out of memory) gives a result with `error` set, which is
// not stored: the test runs again next time.
SelfTestResult check_device(const DeviceDescription& device);

}  // namespace bps::device
