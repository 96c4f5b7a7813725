#pragma once
// Surviving a crash inside the driver. PoCL, for one, aborts the process when a file of its own
// cache is damaged, and every later run would die the same way. So a process marks a device's
// kernel-cache folder while it uses the device (from building its programs until the job ends),
// and a mark whose process is gone at the next start means that process died there: the
// device's cached programs are removed and the driver cache we pointed beside ours is emptied.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/cl/cache_location.h"
#include "engine/device/device_description.h"

namespace bps::cl {

class DeviceUseMark {
public:
    // `cache_root` as cl::cache_root(): the kernel cache is its "kernels" folder, the drivers'
    // caches its "pocl", "cuda" and "neo" folders. Recovers from dead processes' marks first (see
    // notes()), then writes this process's mark. Never throws for file trouble: the mark is a
    // safety net, and a run goes on without it.
    DeviceUseMark(const std::filesystem::path& cache_root, const device::DeviceDescription& device);
    ~DeviceUseMark();  // removes the mark
    DeviceUseMark(const DeviceUseMark&) = delete;
    DeviceUseMark& operator=(const DeviceUseMark&) = delete;

    // One line per recovery, for the learner: which process died on which device, and what was
    // cleared ("... so the cached kernels of DEVICE and PoCL's cache FOLDER were cleared").
    const std::vector<std::string>& notes() const { return notes_; }
    const std::filesystem::path& path() const { return mark_; }

    // A mark of the process with this id for this device (marks of one process differ after the id).
    static std::filesystem::path mark_path(const std::filesystem::path& cache_root,
                                           const device::DeviceDescription& device, std::uint64_t process_id);

private:
    std::filesystem::path mark_;
    std::vector<std::string> notes_;
};

}  // namespace bps::cl
