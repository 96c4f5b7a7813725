#pragma once
// The crash guard's check of a driver's compiler in a separate process (cl/device_use_mark.h):
// the command line builds the engine's programs for the device (`backprop cache check-build`),
// and what it printed tells whether it died in the build. Only the program that is running knows
// where the command line is, so the command line and the studio install the check at start.
// A front-door header (no OpenCL in it): the studio's main() includes it.
#include <filesystem>

namespace bps::device {

// Makes the crash guard check a device's compiler with `PROGRAM cache check-build --device INDEX`
// before it skips the device. PROGRAM is a path, or a bare name the shell finds on PATH.
void check_builds_with(const std::filesystem::path& program);

// What `cache check-build` prints before it builds and after it built everything.
inline constexpr const char* check_build_started = "building";
inline constexpr const char* check_build_finished = "built";

}  // namespace bps::device
