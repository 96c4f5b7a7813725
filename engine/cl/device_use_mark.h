#pragma once
// Surviving a crash inside the driver. PoCL, for one, aborts the process when a file of its own
// cache is damaged, and every later run would die the same way. So a process marks a device's
// kernel-cache folder while it uses the device (from building its programs until the job ends),
// and a mark whose process is gone at the next start means that process died there: the
// device's cached programs are removed and the driver cache we pointed beside ours is emptied.
//
// The start-up crash guard (as darktable has): a mark says whether its process was still
// building programs. A process that dies while building, after the caches were cleared for a
// first such death, may point at the driver's compiler itself, or only at a user who killed two
// runs. So the build is tried once more in a separate process (set_build_checker): only when that
// one dies too is the device skipped from then on (device_skip_reason, which discover_devices
// fills in) until `backprop devices --enable N`. A driver update gives the device a new cache
// folder, and so a fresh start.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/cl/cache_location.h"
#include "engine/device/device_description.h"

namespace bps::cl {

// What a build of the engine's programs in a separate process showed.
struct BuildCheck {
    enum class Outcome {
        not_run,  // no process could be started to check (then the device is skipped, as without a checker)
        built,    // it built every program: the driver's compiler works
        failed,   // it reported an error of its own, and so did not die in the build
        died,     // it died while building: the driver's compiler crashes
    };
    Outcome outcome = Outcome::not_run;
    std::string detail;  // the error it reported, or how it ended
};
using BuildChecker = std::function<BuildCheck(const device::DeviceDescription&)>;

// The check the guard runs before it skips a device, for the whole process: the command line and
// the studio set one that starts the command line (device/build_check.h), which the engine cannot
// find by itself. With none set, a device is skipped at the second death while building.
void set_build_checker(BuildChecker checker);

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

    // The recovery found a second death while building, and a build in a separate process died
    // too (or none could be started): the device is skipped from now on, and this says why and
    // how to enable it again ("" when it was not). The caller must not build for it.
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

// A mark of a process that runs now (not this one): `cache clear` must not empty the caches under it.
struct LiveMark {
    std::uint64_t process = 0;
    std::string device_folder;  // the kernel cache's folder of the device (KernelCache::device_folder_name)
    bool building = false;      // still building programs, rather than using them
};
std::vector<LiveMark> live_marks(const std::filesystem::path& cache_root);

// Why the device is skipped (see DeviceUseMark), ending with how to enable it again; "" when it
// is not.
std::string device_skip_reason(const std::filesystem::path& cache_root, const device::DeviceDescription& device);

// Enables a skipped device again; false when it was not skipped.
bool enable_device(const std::filesystem::path& cache_root, const device::DeviceDescription& device);

}  // namespace bps::cl
