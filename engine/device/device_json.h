#pragma once
// A device as JSON, written in one place: `backprop devices --json` prints it, and the device
// comparison's history keeps it beside each device's figures (compare/comparison_history.h).
#include <nlohmann/json.hpp>

#include "engine/device/device_description.h"

namespace bps::device {

// Every fact of the description, by name: index, name, vendor, platform, platform_version, kind
// ("integrated GPU"), compute_units, clock_mhz, global_memory_bytes, max_allocation_bytes,
// local_memory_bytes, max_work_group_size, opencl_c_version, driver_version, fp16, fp64, skipped
// (null for a usable device), self_test ("passed", "wrong results", "not run"), self_test_summary,
// tuning_summary (what the kernel tuning chose, "" before it ran).
nlohmann::json device_json(const DeviceDescription& device);

// The description back. index, name, platform, platform_version, driver_version, kind,
// compute_units, global_memory_bytes, self_test and self_test_summary must be there (a history
// written before the rest were kept has only those); the rest default. Throws nlohmann::json's
// errors for a missing or mistyped field.
DeviceDescription device_from_json(const nlohmann::json& object);

}  // namespace bps::device
