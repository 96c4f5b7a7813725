#pragma once
// The table `backprop devices` prints: one row per device, each column as wide as its widest
// text, so that a long OpenCL C version or driver text ("OpenCL C 1.2 (Oclgrind 21.10)") pushes
// the columns after it instead of running into them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"

namespace bps::cli {

// The header line and one line per device, each ending in '\n'. A row starts with " * " for the
// chosen device, " - " for a skipped one and three spaces otherwise; columns are two spaces apart.
std::string device_table(const std::vector<device::DeviceDescription>& devices, std::optional<std::size_t> chosen);

}  // namespace bps::cli
