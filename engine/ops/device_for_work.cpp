#include "engine/ops/device_for_work.h"

#include <stdexcept>

#include "engine/cl/cache_location.h"
#include "engine/ops/kernel_tuner.h"

namespace bps::device {

DeviceForWork::DeviceForWork(const cl::DeviceInfo& device, const DeviceOpening& opening)
    : in_use_(std::in_place, cl::cache_root(), device), cache_(cl::kernel_cache_dir()) {
    if (opening.note)
        for (const std::string& note : in_use_->notes()) opening.note(note);
    // Died building for this device again: it is skipped now, and nothing is built for it.
    if (!in_use_->skipped().empty()) throw std::runtime_error(in_use_->skipped());
    cl::DeviceInfo tuned = device;
    if (opening.tuning && device.tuning_summary.empty()) {
        tuned_ = ops::tune_kernels(device, opening.tuning);
        // Another warm-up of the device that finished first keeps its choice: every process
        // builds the same kernels. Not stored, the device is only tuned again at the next warm-up.
        if (const std::optional<device::TuningRecord> kept = device::keep_tuning(cl::cache_root(), device, *tuned_))
            tuned_ = kept;
        else if (opening.note)
            opening.note("the kernel tuning for " + device.name + " could not be stored in " +
                         device::tuning_record_path(cl::cache_root(), device).parent_path().string() +
                         ": the next warm-up tunes again");
        tuned.tuning = tuned_->chosen;
        tuned.tuning_summary = tuned_->summary(device.kind);
    }
    runtime_.emplace(tuned, &cache_, opening.cache_writes);
    if (opening.building) opening.building(0, 0);
    runtime_->build_programs(opening.building);
    if (opening.note)
        for (const std::string& note : runtime_->cache_notes()) opening.note(note);
    std::lock_guard lock(mark_mutex_);
    if (in_use_) in_use_->built();
}

void DeviceForWork::release_mark() noexcept {
    std::lock_guard lock(mark_mutex_);
    in_use_.reset();
}

}  // namespace bps::device
