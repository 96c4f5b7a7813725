#pragma once
// Telling whether the process that left a mark on disk is still running, on every platform:
// the kernel cache's use marks (device_use_mark.h) outlive a process that died inside a driver.
#include <cstdint>

namespace bps::cl {

std::uint64_t current_process_id();

// Whether a process with this id is running now. A process that ended long ago may have passed its
// id on to a new one; then this says true, and the caller only waits longer to act.
bool process_running(std::uint64_t id);

}  // namespace bps::cl
