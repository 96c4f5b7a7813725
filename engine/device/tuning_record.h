#pragma once
// Where a device's kernel tuning (device/kernel_tuning.h) is kept: cache_root/tuning, one small
// JSON file per device, driver and version of the tunable kernels, named like kernel cache
// entries, so a driver update or changed kernels mean tuning again. Like the self-test's record it
// never throws for file trouble: one that cannot be read only means the source's own tiles until
// the next warm-up tunes again.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/device/kernel_tuning.h"

namespace bps::device {

// One variant as the tuner timed it: the fastest of its timed runs of the tuning workload.
struct VariantTime {
    KernelTuning tuning;
    double milliseconds = 0;  // NaN when it could not be built or run (the error says why)
    std::string error;
};

struct TuningRecord {
    KernelTuning chosen;
    std::vector<VariantTime> timed;  // in the order timed, today's fixed choice first
    std::size_t untimed = 0;         // candidates left out when the time budget ran out
    // Today's tiles were timed (and built) a second time, after another variant beat their first
    // timing (ops::choose_tuning); timed[0] holds the better of the two.
    bool today_timed_twice = false;
    double seconds = 0;  // the tuning's own time: all of it less shared_build_seconds
    // Building today's tiles for the first variant: the warm-up's own work, which its build after
    // the tuning takes from the driver's program cache where it keeps one (PoCL, NVIDIA).
    double shared_build_seconds = 0;
    std::string date;  // UTC, as the self-test's
    // "convolution tiles 4x8, step 16: 1.12x the default (4 of 4 variants in 1.4 s)"
    std::string summary(DeviceKind kind) const;
    // The chosen variant's speed over today's fixed choice's (both timed first to last); 1 when
    // the default was chosen or could not be timed.
    double speedup() const;
};

std::filesystem::path tuning_record_path(const std::filesystem::path& cache_root, const DeviceDescription& device);

// nullopt when there is none, or it is damaged, or names a variant the kernels do not take (then
// the device is tuned again at the next warm-up).
std::optional<TuningRecord> read_tuning(const std::filesystem::path& cache_root, const DeviceDescription& device);

// Written atomically; false when it could not be.
bool store_tuning(const std::filesystem::path& cache_root, const DeviceDescription& device, const TuningRecord& record);

// Keeps `record` as the device's tuning unless another process kept one first (two warm-ups at once
// may time a close race differently, and the kernel cache must not end up with both variants): the
// file is created, never replaced. Returns the record in effect, theirs or this one; nullopt when
// none could be stored or read (the caller then uses its own, for this run only).
std::optional<TuningRecord> keep_tuning(const std::filesystem::path& cache_root, const DeviceDescription& device,
                                        const TuningRecord& record);

// Sets the device's tuning and tuning_summary from its stored record (the source's own tiles and
// "" without one).
void fill_tuning_state(const std::filesystem::path& cache_root, DeviceDescription& device);

}  // namespace bps::device
