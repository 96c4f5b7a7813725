#pragma once
// The device self-test: about a second of work that compares a device's results with the C++
// references before a learner trusts it. Drivers with broken compilers exist in the wild; a
// learner must never train on one unknowingly. It runs before a device's first training (the
// training job does it) and on demand (`backprop devices --check`), and its result is stored
// beside the kernel cache, keyed like it by device, driver and this program's kernels, so it
// runs again after a driver update. This header holds the result's values; the test runs in
// engine/bench/self_test.h, and on demand through engine/session/device_check.h. Discovery reads the stored result into
// DeviceDescription::self_test, and a device with wrong results is never the default.
#include <string>
#include <vector>

#include "engine/device/device_description.h"

namespace bps::device {

struct SelfTestCheck {
    std::string name;      // "SGEMM 67x45x129 (CLBlast)", "training step: weights after one SGD update"
    double error = 0;      // the largest error found, in the check's own measure (its name says which)
    double tolerance = 0;  // what float32 rounding can explain
    bool passed() const { return error <= tolerance; }  // a NaN error fails
};

struct SelfTestResult {
    std::vector<SelfTestCheck> checks;
    std::string error;            // the test could not run to its end (a build or launch failed)
    double launch_us = 0;         // host time of one kernel launch, in bursts
    double launch_finish_us = 0;  // a launch and the wait for it
    double seconds = 0;           // the whole test
    std::string date;             // when it ran, "2026-11-25 20:14 UTC"

    // Every check ran and passed.
    bool correct() const;
    // What the result says of the device: not_run when the test could not finish (`error`).
    SelfTestState state() const;
    // One line for lists: "passed 4 checks in 0.8 s; kernel launch 2.1 us (with the wait 31 us)",
    // or what was wrong: "training step: weights after one SGD update off by 0.31 (float
    // rounding allows 0.001)".
    std::string summary() const;
};

}  // namespace bps::device
