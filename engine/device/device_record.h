#pragma once
// The small JSON records kept per device beside the kernel cache (the self-test's result, the
// kernel tuning's choice): one file per device, driver and version of the kernels they were made
// with, named like kernel cache entries under a folder of cache_root. Reading never throws for
// file trouble: a record that is missing, damaged or another device's reads as none.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engine/device/device_description.h"

namespace bps::device {

// cache_root/folder/<device folder>-<hash>.json, both from the device and `sources` (the kernels
// the record holds for) under `purpose`.
std::filesystem::path device_record_path(const std::filesystem::path& cache_root, std::string_view folder,
                                         const DeviceDescription& device, const std::string& sources,
                                         std::string_view purpose);

// The record's JSON when it is whole, of this format and version, and names this device and driver.
std::optional<nlohmann::json> read_device_record(const std::filesystem::path& path, std::string_view format,
                                                 int version, const DeviceDescription& device);

// `fields` with the format, version and the device's names added, as the file's text.
std::string device_record_text(std::string_view format, int version, const DeviceDescription& device,
                               nlohmann::json fields);

// Written atomically, its folder made first; false when it could not be.
bool store_device_record(const std::filesystem::path& path, const std::string& text);

}  // namespace bps::device
