#pragma once
// The self-test's work on a runtime the caller made (the training job tests the device it is
// about to train on with its own runtime, so nothing is built twice). Stores nothing.
#include "engine/device/self_test.h"
#include "engine/ops/runtime.h"

namespace bps::device {

// Throws what the device throws (cl::ClError naming the call, DeviceMemoryError).
SelfTestResult run_self_test(ops::Runtime& runtime);

}  // namespace bps::device
