#pragma once
// The crash guard's check of a driver's compiler in a separate process (cl/device_use_mark.h):
// the command line builds the engine's programs for the device (`backprop cache check-build`),
// and what it printed tells whether it died in the build. Only the program that is running knows
// where the command line is, so the command line and the studio install the check at start.
#include <filesystem>

#include "engine/cl/device_use_mark.h"
#include "engine/device/device_description.h"

namespace bps::device {

// Starts `PROGRAM cache check-build --device INDEX` and reads its output: "building" then
// "built" when every program was built; an error of its own on stderr when it failed; building
// and nothing after when it died there. PROGRAM is a path, or a bare name the shell finds on PATH.
cl::BuildCheck check_build_in_child(const std::filesystem::path& program, const DeviceDescription& device);

// Makes the crash guard check with check_build_in_child(program, ...) before it skips a device.
void check_builds_with(const std::filesystem::path& program);

// What `cache check-build` prints before it builds and after it built everything.
inline constexpr const char* check_build_started = "building";
inline constexpr const char* check_build_finished = "built";

}  // namespace bps::device
