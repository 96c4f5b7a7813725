#pragma once
// A device opened for work, in the one order every user of a device follows: marked in use (so
// that a crash inside the driver clears its caches at the next start, see cl/device_use_mark.h),
// its kernel cache opened, a runtime made and the engine's programs built, then the mark told the
// build is done. Training jobs, predictors, self-tests, comparisons and benchmarks all open their
// device this way.
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/device/tuning_record.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/ops/runtime.h"

namespace bps::device {

struct DeviceOpening {
    // A line for the learner: a dead process's caches that were cleared, a damaged cache entry.
    std::function<void(const std::string&)> note;
    // Before the build starts (0 of 0), then after each program.
    std::function<void(std::size_t done, std::size_t total)> building;
    // The warm-up, which builds ahead of need, stores even PoCL's binaries (ops::CacheWrites).
    ops::CacheWrites cache_writes = ops::CacheWrites::skip_pocl_binaries;
    // The warm-up: a device with no stored tuning (DeviceDescription::tuning_summary empty) is tuned
    // first (ops/kernel_tuner.h), under the device's mark, hearing each variant as it is timed; the
    // record is stored and the programs are built with the winner. Null: the stored tuning, or the
    // source's own tiles.
    std::function<void(std::size_t done, std::size_t total)> tuning = {};
};

class DeviceForWork {
public:
    // Throws std::runtime_error saying why when the device is skipped after crashing its driver's
    // compiler twice, and the runtime's and build's errors (cl::ClError) as they come.
    explicit DeviceForWork(const cl::DeviceInfo& device, const DeviceOpening& opening = {});
    DeviceForWork(const DeviceForWork&) = delete;
    DeviceForWork& operator=(const DeviceForWork&) = delete;

    ops::Runtime& runtime() noexcept { return *runtime_; }
    const cl::DeviceInfo& device() const noexcept { return runtime_->device(); }
    // The tuning done while opening (DeviceOpening::tuning), none when none was.
    const std::optional<device::TuningRecord>& tuned() const noexcept { return tuned_; }

    // The work ends on purpose while a call may still be stuck in the driver (a watchdog ended it):
    // the mark goes now, from any thread, so that the next start does not take it for a crash.
    void release_mark() noexcept;

private:
    std::mutex mark_mutex_;
    std::optional<cl::DeviceUseMark> in_use_;
    cl::KernelCache cache_;
    std::optional<device::TuningRecord> tuned_;
    std::optional<ops::Runtime> runtime_;  // made once the mark is written: it already talks to the driver
};

}  // namespace bps::device
