#pragma once
// Surviving a crash inside the driver. PoCL, for one, aborts the process when a file of its own
// cache is damaged, and every later run would die the same way. So a process marks a device's
// kernel-cache folder while it uses the device (from building its programs until the job ends),
// and a mark whose process is gone at the next start means that process died there: the
// device's cached programs are removed and the driver cache we pointed beside ours is emptied.
//
// The start-up crash guard (as darktable has): a mark says whether its process was still
// building programs. A process that dies while building, after the caches were cleared for a
// first such death, points at the driver's compiler itself, so the device is skipped from then
// on (device_skip_reason, which discover_devices fills in) until `backprop devices --enable N`.
// A driver update gives the device a new cache folder, and so a fresh start.
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
    // notes()), then writes this process's mark, in the building phase. Never throws for file
    // trouble: the mark is a safety net, and a run goes on without it.
    DeviceUseMark(const std::filesystem::path& cache_root, const device::DeviceDescription& device);
    ~DeviceUseMark();  // removes the mark
    DeviceUseMark(const DeviceUseMark&) = delete;
    DeviceUseMark& operator=(const DeviceUseMark&) = delete;

    // One line per recovery, for the learner: which process died on which device, and what was
    // cleared ("... so the cached kernels of DEVICE and PoCL's cache FOLDER were cleared").
    const std::vector<std::string>& notes() const { return notes_; }
    const std::filesystem::path& path() const { return mark_; }

    // The recovery found a second death while building: the device is skipped from now on, and
    // this says why and how to enable it again ("" when it was not). The caller must not build
    // for it.
    const std::string& skipped() const { return skipped_; }

    // The programs are built: a death from here on is not the compiler's, and earlier deaths
    // while building are forgiven.
    void built();

    // A mark of the process with this id for this device (marks of one process differ after the id).
    static std::filesystem::path mark_path(const std::filesystem::path& cache_root,
                                           const device::DeviceDescription& device, std::uint64_t process_id);

private:
    std::filesystem::path mark_;
    std::vector<std::string> notes_;
    std::string skipped_;
    std::filesystem::path build_deaths_;
};

// Why the device is skipped (see DeviceUseMark), ending with how to enable it again; "" when it
// is not.
std::string device_skip_reason(const std::filesystem::path& cache_root, const device::DeviceDescription& device);

// Enables a skipped device again; false when it was not skipped.
bool enable_device(const std::filesystem::path& cache_root, const device::DeviceDescription& device);

}  // namespace bps::cl
