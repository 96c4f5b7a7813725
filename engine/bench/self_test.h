#pragma once
// The self-test's work on a runtime the caller made (the training job tests the device it is
// about to train on with its own runtime, so nothing is built twice). Stores nothing.
#include <functional>
#include <string>

#include "engine/cl/device.h"
#include "engine/device/self_test.h"
#include "engine/ops/runtime.h"

namespace bps::device {

// Throws what the device throws (cl::ClError naming the call, DeviceMemoryError).
SelfTestResult run_self_test(ops::Runtime& runtime);

// Before a device's first work (with this driver and these kernels) its self-test runs on
// `runtime` and is stored: a device that computes wrong results throws std::runtime_error with
// the figures, and is not the default from then on. `testing` hears that the test starts. One
// known to be wrong and chosen by name anyway works, and `note` gets the warning.
void test_before_first_use(const cl::DeviceInfo& device, ops::Runtime& runtime,
                           const std::function<void(const std::string&)>& note,
                           const std::function<void()>& testing = {});

}  // namespace bps::device
