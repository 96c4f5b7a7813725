#include "engine/cl/device_use_mark.h"

#include <atomic>
#include <fstream>

#include "engine/cl/kernel_cache.h"
#include "engine/cl/process_identity.h"

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

constexpr const char* mark_prefix = "in-use-";
// A mark's text while its process builds programs, and after.
constexpr const char* building_text = "building";
constexpr const char* using_text = "using";
// Beside the marks: how many processes died while building (after the last clear), and the
// reason a skipped device is skipped.
constexpr const char* build_deaths_file = "died-while-building";
constexpr const char* skipped_file = "skipped";

std::string first_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line.size() > 4096 ? line.substr(0, 4096) : line;
}

// The hint every skip message ends with.
std::string enable_hint(const device::DeviceDescription& device) {
    return "run 'backprop devices --enable " + std::to_string(device.index) + "' to use it again";
}

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
    std::vector<std::uint64_t> died_building;
    std::error_code error;
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
        const std::uint64_t process = marked_process(entry->path());
        if (process == 0 || process == self || process_running(process)) continue;
        dead.push_back(process);
        if (first_line(entry->path()).rfind(building_text, 0) == 0) died_building.push_back(process);
        std::error_code ignored;
        fs::remove(entry->path(), ignored);
    }
    build_deaths_ = folder / build_deaths_file;
    if (!died_building.empty()) {
        // The first death while building may be a damaged cache, which the clearing below cures;
        // one after that is the compiler's.
        const std::string earlier = first_line(build_deaths_);
        const bool before = !earlier.empty();
        std::string processes = earlier;
        for (const std::uint64_t process : died_building)
            processes += (processes.empty() ? "" : ", ") + std::to_string(process);
        fs::create_directories(folder, error);
        if (before || died_building.size() > 1) {
            const std::string reason = "the program died while building kernels for it (processes " + processes +
                                       "), also after its caches were cleared";
            std::ofstream(folder / skipped_file) << reason << "\n";
            skipped_ = device.name + " is skipped from now on: " + reason + "; " + enable_hint(device);
            fs::remove(build_deaths_, error);
        } else {
            std::ofstream(build_deaths_) << processes << "\n";
        }
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
        notes_.push_back(note + " were cleared" + (skipped_.empty() ? "; the kernels are built anew" : ""));
    }
    // One process may use a device in several jobs at once: each has its own mark.
    static std::atomic<unsigned> marks_made{0};
    mark_ = folder / (mark_prefix + std::to_string(self) + "-" + std::to_string(marks_made++));
    fs::create_directories(folder, error);
    std::ofstream(mark_) << building_text << ": in use by process " << self << "\n";
}

void DeviceUseMark::built() {
    std::ofstream(mark_) << using_text << ": in use by process " << current_process_id() << "\n";
    std::error_code ignored;
    fs::remove(build_deaths_, ignored);
}

std::string device_skip_reason(const fs::path& cache_root, const device::DeviceDescription& device) {
    const fs::path file = device_folder(cache_root, device) / skipped_file;
    std::error_code error;
    if (!fs::exists(file, error)) return {};
    // The hint names the device's index of today.
    std::string reason = first_line(file);
    if (reason.empty()) reason = "the program died while building kernels for it";
    return reason + "; " + enable_hint(device);
}

bool enable_device(const fs::path& cache_root, const device::DeviceDescription& device) {
    const fs::path folder = device_folder(cache_root, device);
    std::error_code error;
    fs::remove(folder / build_deaths_file, error);
    return fs::remove(folder / skipped_file, error);
}

DeviceUseMark::~DeviceUseMark() {
    std::error_code ignored;
    fs::remove(mark_, ignored);
}

}  // namespace bps::cl
