#pragma once
// Warming a device up for work while the learner looks around: the engine's programs built into
// the kernel cache and the device's self-test run and stored, so that the first Train finds both
// done (a cold cache on two CPU cores costs half a minute otherwise). The studio does this for the
// default device at every start where the cache is not warm; `backprop cache warm` builds the same
// programs on the command line.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/device/self_test.h"
#include "engine/device/tuning_record.h"

namespace bps::session {

struct WarmUpProgress {
    std::size_t done = 0;   // the engine's programs ready so far (while tuning: variants timed)
    std::size_t total = 0;  // all of them; 0 while the device is being opened
    bool testing = false;   // every program is ready and the self-test runs
    bool tuning = false;    // the kernels' tile variants are being timed (ops/kernel_tuner.h)
};

struct DeviceWarmUp {
    bool was_warm = false;     // nothing to do: every program cached and a self-test stored
    bool stopped = false;      // asked to stop: the programs built so far are cached, the rest are not
    std::size_t programs = 0;  // the engine's programs, in the kernel cache now
    // The kernel tuning done now (stored); none when one was stored already.
    std::optional<device::TuningRecord> tuning;
    // The self-test run now (stored when it could finish); none when one was stored already.
    std::optional<device::SelfTestResult> self_test;
    std::vector<std::string> notes;  // a damaged cache entry replaced, a dead process's caches cleared
};

// Whether the device needs no warm-up: its kernels are tuned, every engine program has an entry in
// the kernel cache (built with the tuning) and a self-test result is stored for this driver. Reads no binary; throws
// NoDeviceError when the device is gone.
bool device_is_warm(const device::DeviceDescription& device);

// Tunes the device's kernels when no tuning is stored, builds the engine's programs for the device
// through the kernel cache (those cached are only loaded), then runs its self-test when none is
// stored. `progress` hears (0 of 0) while the device
// opens, each program as it becomes ready, and the start of the self-test. Returns at once when the
// device is warm. `stop_requested` is asked between tuning variants and between programs: a program's build is not
// interrupted, but the next one does not start (the program is closing). Throws NoDeviceError
// when the device is gone, and what opening it throws (a skipped device, a build error).
DeviceWarmUp warm_up_device(const device::DeviceDescription& device,
                            const std::function<void(const WarmUpProgress&)>& progress = {},
                            const std::function<bool()>& stop_requested = {});

}  // namespace bps::session
