#include "engine/ops/device_for_work.h"

#include <stdexcept>

#include "engine/cl/cache_location.h"

namespace bps::device {

DeviceForWork::DeviceForWork(const cl::DeviceInfo& device, const DeviceOpening& opening)
    : in_use_(std::in_place, cl::cache_root(), device), cache_(cl::kernel_cache_dir()) {
    if (opening.note)
        for (const std::string& note : in_use_->notes()) opening.note(note);
    // Died building for this device again: it is skipped now, and nothing is built for it.
    if (!in_use_->skipped().empty()) throw std::runtime_error(in_use_->skipped());
    runtime_.emplace(device, &cache_, opening.cache_writes);
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
