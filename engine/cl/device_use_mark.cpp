#include "engine/cl/device_use_mark.h"

#include <atomic>
#include <fstream>

#include "engine/cl/kernel_cache.h"
#include "engine/cl/process_identity.h"

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

constexpr const char* mark_prefix = "in-use-";

fs::path device_folder(const fs::path& cache_root, const device::DeviceDescription& device) {
    const CacheKey key{{}, {}, device.platform_name, device.platform_version, device.name, device.driver_version};
    return cache_root / "kernels" / KernelCache::device_folder_name(key);
}

// The process id a mark's name carries ("in-use-1234-0": process 1234, its first mark), or 0
// when the name is no mark's.
std::uint64_t marked_process(const fs::path& file) {
    const std::string name = file.filename().string();
    if (name.rfind(mark_prefix, 0) != 0) return 0;
    const std::size_t start = std::string(mark_prefix).size();
    const std::string digits = name.substr(start, name.find('-', start) - start);
    if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoull(digits);
}

// The driver caches of this device's platform; all of them when the platform is none we know.
std::vector<DriverCache> caches_of(const fs::path& cache_root, const device::DeviceDescription& device) {
    std::vector<DriverCache> all = driver_caches(cache_root);
    const std::string& platform = device.platform_name;
    std::vector<DriverCache> matching;
    for (const DriverCache& cache : all) {
        const bool pocl = cache.driver == "PoCL" && platform.find("Portable Computing Language") != std::string::npos;
        const bool named = platform.find(cache.driver) != std::string::npos;
        if (pocl || named) matching.push_back(cache);
    }
    return matching.empty() ? all : matching;
}

}  // namespace

fs::path DeviceUseMark::mark_path(const fs::path& cache_root, const device::DeviceDescription& device,
                                  std::uint64_t process_id) {
    return device_folder(cache_root, device) / (mark_prefix + std::to_string(process_id));
}

DeviceUseMark::DeviceUseMark(const fs::path& cache_root, const device::DeviceDescription& device) {
    const fs::path folder = device_folder(cache_root, device);
    const std::uint64_t self = current_process_id();
    std::vector<std::uint64_t> dead;
    std::error_code error;
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
        const std::uint64_t process = marked_process(entry->path());
        if (process == 0 || process == self || process_running(process)) continue;
        dead.push_back(process);
        std::error_code ignored;
        fs::remove(entry->path(), ignored);
    }
    if (!dead.empty()) {
        // Those processes died while they used this device: whatever they loaded may be what
        // killed them, so it is all built anew, once however many marks there were.
        KernelCache(cache_root / "kernels").clear_device(folder.filename().string());
        std::string processes;
        for (const std::uint64_t process : dead) processes += (processes.empty() ? "" : ", ") + std::to_string(process);
        std::string note = std::string(dead.size() == 1 ? "an earlier run (process " : "earlier runs (processes ") +
                           processes + ") ended abruptly while using " + device.name +
                           ", perhaps inside its driver on a damaged cache file, so its cached kernels";
        for (const DriverCache& cache : caches_of(cache_root, device)) {
            std::error_code ignored;
            if (!fs::exists(cache.folder, ignored)) continue;
            clear_driver_caches({cache});
            note += " and " + cache.driver + "'s cache " + cache.folder.string();
        }
        notes_.push_back(note + " were cleared; the kernels are built anew");
    }
    // One process may use a device in several jobs at once: each has its own mark.
    static std::atomic<unsigned> marks_made{0};
    mark_ = folder / (mark_prefix + std::to_string(self) + "-" + std::to_string(marks_made++));
    fs::create_directories(folder, error);
    std::ofstream(mark_) << "in use by process " << self << "\n";
}

DeviceUseMark::~DeviceUseMark() {
    std::error_code ignored;
    fs::remove(mark_, ignored);
}

}  // namespace bps::cl
