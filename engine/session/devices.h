#pragma once
// The computer's OpenCL devices as the studio and the CLI reach them: listed, enabled again after
// a crash, their kernel caches cleared. A door header (no OpenCL in it); engine/device/ holds the
// plain values these return.
#include <string>
#include <vector>

#include "engine/device/device_description.h"

namespace bps::device {

// Every device of every platform. Empty when no OpenCL platform is installed; a failing driver
// throws (cl::ClError, a std::runtime_error naming the call).
std::vector<DeviceDescription> list_devices();

// Points the drivers' own kernel caches (PoCL, NVIDIA, Intel) beside Backprop Studio's, unless the
// user set them. Call once at start-up, before the first OpenCL call.
void point_driver_caches_beside_ours();

// Empties the kernel cache and the drivers' caches kept beside it, and PoCL's "kcache" folder in
// one the user pointed elsewhere (of NVIDIA's and Intel's there, it says what to delete): what
// `backprop cache clear` and the studio's Devices tab do. One line per folder, for the learner:
// "removed 12 cached programs from FOLDER", "emptied PoCL's cache in FOLDER". Throws
// cl::CacheInUseError (a std::runtime_error naming it) while another process uses the caches.
std::vector<std::string> clear_kernel_caches();

// Uses a device skipped by the start-up crash guard again (what `backprop devices --enable` and
// the studio's Devices tab do); false when it was not skipped.
bool enable_device(const DeviceDescription& device);

}  // namespace bps::device
