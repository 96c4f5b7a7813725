#pragma once
// Where a device's self-test result is kept: cache_root/self-test, one small JSON file per
// device, driver and set of this program's kernels (named like kernel cache entries, so a
// driver update or new kernels mean a new test). Never throws for file trouble: a result that
// cannot be read or stored only means the test runs again.
#include <filesystem>
#include <optional>

#include "engine/device/device_description.h"
#include "engine/device/self_test.h"

namespace bps::device {

std::filesystem::path self_test_record_path(const std::filesystem::path& cache_root, const DeviceDescription& device);

// nullopt when there is none, or it is damaged (then it is tested again).
std::optional<SelfTestResult> read_self_test(const std::filesystem::path& cache_root, const DeviceDescription& device);

// Written atomically; false when it could not be.
bool store_self_test(const std::filesystem::path& cache_root, const DeviceDescription& device,
                     const SelfTestResult& result);

// The device's self_test and self_test_summary from a result; none, or one that could not
// finish, says nothing (not_run).
void set_self_test_state(DeviceDescription& device, const std::optional<SelfTestResult>& result);

// The device's self_test and self_test_summary from its stored result.
void fill_self_test_state(const std::filesystem::path& cache_root, DeviceDescription& device);

}  // namespace bps::device
