#include "engine/device/device_record.h"

#include "engine/base/atomic_file.h"
#include "engine/base/bounded_text.h"
#include "engine/kernel_cache/kernel_cache.h"

namespace bps::device {

namespace fs = std::filesystem;

fs::path device_record_path(const fs::path& cache_root, std::string_view folder, const DeviceDescription& device,
                            const std::string& sources, std::string_view purpose) {
    const cl::CacheKey key{sources,     std::string(purpose), device.platform_name, device.platform_version,
                           device.name, device.driver_version};
    return cache_root / folder /
           (cl::KernelCache::device_folder_name(key) + "-" + cl::KernelCache::key_hash_hex(key) + ".json");
}

std::optional<nlohmann::json> read_device_record(const fs::path& path, std::string_view format, int version,
                                                 const DeviceDescription& device) {
    const io::BoundedText file = io::read_bounded_text(path, 1 << 16);
    if (file.outcome != io::TextRead::read) return std::nullopt;
    try {
        nlohmann::json record = nlohmann::json::parse(file.text);
        if (record.at("format") != format || record.at("version") != version) return std::nullopt;
        // The name carries a hash of these; a record of another device or driver is not this one's.
        if (record.at("device") != device.name || record.at("driver") != device.driver_version) return std::nullopt;
        return record;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string device_record_text(std::string_view format, int version, const DeviceDescription& device,
                               nlohmann::json fields) {
    fields["format"] = format;
    fields["version"] = version;
    fields["device"] = device.name;
    fields["platform"] = device.platform_name;
    fields["platform_version"] = device.platform_version;
    fields["driver"] = device.driver_version;
    return fields.dump(2) + "\n";
}

bool store_device_record(const fs::path& path, const std::string& text) {
    try {
        std::error_code ignored;
        fs::create_directories(path.parent_path(), ignored);
        io::save_atomically(path, text);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace bps::device
