#pragma once
// The OpenCL devices of this computer as plain values: what the CLI prints, the studio lists and
// a training job is asked to use. No OpenCL header is reachable from here; engine/cl adds the
// driver's handles (cl::DeviceInfo) for the code that talks to the device.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/device/kernel_tuning.h"

namespace bps::device {

// In the order of preference for the default device.
enum class DeviceKind { DiscreteGpu, IntegratedGpu, Accelerator, Cpu };

// "discrete GPU", "integrated GPU", "accelerator", "CPU"
std::string_view kind_name(DeviceKind kind);

// What the device's self-test (engine/device/self_test.h) found with this driver and this
// program's kernels. A device with wrong results is never the default.
enum class SelfTestState { not_run, passed, wrong_results };

// "passed", "wrong results", "not run": how the CLI, its JSON and saved comparisons name a state.
std::string_view self_test_state_name(SelfTestState state);

struct DeviceDescription {
    std::size_t index = 0;  // position in list_devices(), what --device INDEX refers to
    std::string platform_name;
    std::string platform_version;
    std::string name;
    std::string vendor;
    DeviceKind kind = DeviceKind::Cpu;  // GPU with host-unified memory = integrated
    std::uint32_t compute_units = 0;
    std::uint32_t clock_mhz = 0;
    std::uint64_t global_memory_bytes = 0;
    std::uint64_t max_allocation_bytes = 0;
    std::uint64_t local_memory_bytes = 0;
    std::size_t max_work_group_size = 0;
    std::string opencl_c_version;  // e.g. "OpenCL C 1.2 pocl"
    std::string driver_version;
    bool fp16 = false;
    bool fp64 = false;
    // Why the device is skipped (the program died while building kernels for it, twice), ending
    // with how to use it again; empty for a usable device. Filled in by discovery.
    std::string skipped;
    // The stored self-test of this device and driver, and its one-line summary with the figures
    // ("" when not run). Filled in by discovery.
    SelfTestState self_test = SelfTestState::not_run;
    std::string self_test_summary;
    // The tiles the engine's own kernels are built with on this device (device/tuning_record.h),
    // and what its tuning found ("" before the first warm-up tunes it). Filled in by discovery.
    KernelTuning tuning;
    std::string tuning_summary;
};

// No OpenCL platform at all: an ordinary state with an explanation (no_opencl_help), not a crash.
class NoDeviceError : public std::runtime_error {
public:
    NoDeviceError();
};

// Whether the device is PoCL's (the CPU driver), whose compiler and caches behave unlike a GPU
// driver's (cl/device_use_mark.h, ops/runtime.h).
bool is_pocl(const DeviceDescription& device);

// How to install an OpenCL driver on this operating system (shown by the CLI and the GUI).
std::string no_opencl_help();

// Discrete GPU, then integrated GPU, then accelerator, then CPU; within a kind the most
// compute units; devices whose self-test found wrong results after the others, and skipped
// devices last. Throws NoDeviceError for an empty list.
std::size_t default_device_index(const std::vector<DeviceDescription>& devices);

// request: "" for the default, a decimal index, or a case-insensitive substring of the device
// name. Throws NoDeviceError for an empty list, and std::runtime_error naming the request and
// listing the devices when nothing fits, or saying why the device is skipped when it is (also
// the default, when every device is). The default is never a device whose self-test found wrong
// results: when no other is left, that throws too, with the figures. A device asked for by name
// or index is given even so (the caller warns: wrong_results_warning).
std::size_t select_device(const std::vector<DeviceDescription>& devices, std::string_view request);

// The device a request names, skipped or not (for enabling one again): select_device's rules.
std::size_t find_device(const std::vector<DeviceDescription>& devices, std::string_view request);

// What to suggest when the device at `failing` fails: the first CPU device that is not it, as
// "the CPU device 'NAME' (device 1)"; "" when there is none.
std::string cpu_device_offer(const std::vector<DeviceDescription>& devices, std::size_t failing);

// "device N (NAME) computed wrong results in its self-test: SUMMARY; ..." for a device whose
// self-test failed, saying what a learner can do; "" for any other device.
std::string wrong_results_warning(const DeviceDescription& device);

// The request the user made: the --device flag when given, else BACKPROP_DEVICE, else "".
std::string device_request(const std::optional<std::string>& flag);

}  // namespace bps::device
