#include "engine/cl/device_use_mark.h"

#include <atomic>
#include <fstream>
#include <mutex>
#include <optional>

#include "engine/cl/cache_clearing.h"
#include "engine/cl/pocl_cache_check.h"
#include "engine/cl/process_identity.h"
#include "engine/kernel_cache/kernel_cache.h"

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

std::mutex checker_mutex;
BuildChecker& stored_checker() {
    static BuildChecker checker;
    return checker;
}

std::string process_list(const std::vector<std::uint64_t>& processes, std::string text = {}) {
    for (const std::uint64_t process : processes) text += (text.empty() ? "" : ", ") + std::to_string(process);
    return text;
}

// The driver caches of this device's platform (also one the user's variable points elsewhere);
// all of them when the platform is none we know.
std::vector<DriverCache> caches_of(const fs::path& cache_root, const device::DeviceDescription& device) {
    std::vector<DriverCache> all = driver_caches_to_clear(cache_root);
    const std::string& platform = device.platform_name;
    std::vector<DriverCache> matching;
    for (const DriverCache& cache : all) {
        const bool pocl = cache.driver == "PoCL" && device::is_pocl(device);
        const bool named = platform.find(cache.driver) != std::string::npos;
        if (pocl || named) matching.push_back(cache);
    }
    return matching.empty() ? all : matching;
}

// Empties the driver caches of the device. Returns what it emptied, by name ("PoCL's cache
// FOLDER"), and for a folder the user chose that cannot be emptied safely, what to delete by hand.
struct ClearedCaches {
    std::vector<std::string> cleared;
    std::vector<std::string> advice;
};
ClearedCaches clear_caches_of(const fs::path& cache_root, const device::DeviceDescription& device) {
    ClearedCaches result;
    for (const DriverCache& cache : caches_of(cache_root, device)) {
        std::error_code ignored;
        if (!fs::exists(cache.folder, ignored)) continue;
        if (const std::string advice = driver_cache_advice(cache); !advice.empty()) {
            result.advice.push_back(advice);
            continue;
        }
        clear_driver_caches({cache});
        result.cleared.push_back(cache.driver + "'s cache " + cache.folder.string() +
                                 (cache.set_by_user ? " (set by " + cache.variable + ")" : ""));
    }
    return result;
}

// clear_caches_of under a clearing marker (cache_clearing.h): a process that starts to build
// meanwhile waits until the caches are emptied. Nothing (nullopt) when another process uses them.
std::optional<ClearedCaches> clear_when_unused(const fs::path& cache_root, const device::DeviceDescription& device) {
    try {
        const CacheClearing clearing(cache_root);
        return clear_caches_of(cache_root, device);
    } catch (const CacheInUseError&) {
        return std::nullopt;
    }
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i)
        text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return text;
}

}  // namespace

void set_build_checker(BuildChecker checker) {
    std::lock_guard lock(checker_mutex);
    stored_checker() = std::move(checker);
}

fs::path DeviceUseMark::mark_path(const fs::path& cache_root, const device::DeviceDescription& device,
                                  std::uint64_t process_id) {
    return device_folder(cache_root, device) / (mark_prefix + std::to_string(process_id));
}

DeviceUseMark::DeviceUseMark(const fs::path& cache_root, const device::DeviceDescription& device) {
    const fs::path folder = device_folder(cache_root, device);
    const std::uint64_t self = current_process_id();
    std::vector<std::uint64_t> dead;
    std::vector<std::uint64_t> died_building;
    std::vector<std::uint64_t> alive;   // other processes that use the device now
    bool jobs_of_this_process = false;  // another job of this process uses it now
    std::error_code error;
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
        const std::uint64_t process = marked_process(entry->path());
        if (process == 0) continue;
        if (process == self) {
            jobs_of_this_process = true;  // this one's mark is not written yet: another job's
            continue;
        }
        if (process_running(process)) {
            alive.push_back(process);
            continue;
        }
        dead.push_back(process);
        if (first_line(entry->path()).rfind(building_text, 0) == 0) died_building.push_back(process);
        std::error_code ignored;
        fs::remove(entry->path(), ignored);
    }
    build_deaths_ = folder / build_deaths_file;
    // A second death while building (after the first cleared the caches) makes the compiler a
    // suspect: it is checked below before the device is skipped.
    bool suspect = false;
    std::string builders;
    if (!died_building.empty()) {
        const std::string earlier = first_line(build_deaths_);
        builders = process_list(died_building, earlier);
        suspect = !earlier.empty() || died_building.size() > 1;
        fs::create_directories(folder, error);
        if (!suspect) std::ofstream(build_deaths_) << builders << "\n";
    }
    if (!dead.empty()) {
        // What a process that ended abruptly may have left damaged is the driver's own cache: the
        // driver reads it unchecked (PoCL aborts on a broken file of its own). Our entries are
        // written to a temporary file and renamed into place, and load() checks their checksum, so
        // a kill cannot leave a broken one: they are kept, and the next start loads them instead
        // of building everything anew. Only when the program died building again with the driver's
        // cache emptied are they suspect too (one may hold a binary that the driver cannot take).
        if (suspect) KernelCache(cache_root / "kernels").clear_device(folder.filename().string());
        std::string note = std::string(dead.size() == 1 ? "an earlier run (process " : "earlier runs (processes ") +
                           process_list(dead) + ") ended abruptly while using " + device.name +
                           ", perhaps inside its driver on a damaged cache file, so ";
        // Emptying the driver's cache under another process (or job) that uses the device now could
        // make the driver abort that one: then it stays as it is. The clearing marker makes a process
        // that starts meanwhile wait until the caches are emptied (cache_clearing.h); one that wrote its
        // mark first makes the clearing refuse.
        bool in_use_meanwhile = false;
        ClearedCaches drivers;
        if (alive.empty() && !jobs_of_this_process) {
            std::optional<ClearedCaches> cleared = clear_when_unused(cache_root, device);
            in_use_meanwhile = !cleared;
            if (cleared) drivers = std::move(*cleared);
        }
        std::vector<std::string> cleared = drivers.cleared;
        if (suspect) cleared.insert(cleared.begin(), "its cached kernels");
        note += cleared.empty() ? std::string("nothing was cleared")
                                : joined(cleared) + (cleared.size() == 1 ? " was cleared" : " were cleared");
        if (!suspect) note += " (its cached kernels are kept: they are written whole or not at all)";
        if (!alive.empty())
            note += "; its driver's cache is left as it is while process " + process_list(alive) + " uses it";
        else if (jobs_of_this_process || in_use_meanwhile)
            note += "; its driver's cache is left as it is while " +
                    std::string(jobs_of_this_process ? "another job of this program" : "another process") + " uses it";
        for (const std::string& advice : drivers.advice) note += "; " + advice;
        notes_.push_back(note);
    }
    if (suspect) {
        BuildChecker checker;
        {
            std::lock_guard lock(checker_mutex);
            checker = stored_checker();
        }
        const BuildCheck check = checker ? checker(device) : BuildCheck{};
        using Outcome = BuildCheck::Outcome;
        if (check.outcome == Outcome::built || check.outcome == Outcome::failed) {
            // A kill, or an ordinary error of the build that this process will meet and report too:
            // not a crash of the compiler. The count starts again.
            fs::remove(build_deaths_, error);
            notes_.push_back("the program died while building kernels for " + device.name + " (processes " + builders +
                             "), but a build in a separate process then " +
                             (check.outcome == Outcome::built ? "finished" : "ended with an error of its own") +
                             ", so its driver's compiler did not crash (was the program killed?): " + device.name +
                             " is used");
        } else {
            std::string reason = "the program died while building kernels for it (processes " + builders +
                                 "), also after its caches were cleared";
            if (check.outcome == Outcome::died) {
                reason += ", and so did a build in a separate process";
                if (alive.empty() && !jobs_of_this_process) clear_when_unused(cache_root, device);  // what it left
            } else if (!check.detail.empty()) {
                reason += " (it could not be checked in a separate process: " + check.detail + ")";
            }
            std::ofstream(folder / skipped_file) << reason << "\n";
            skipped_ = device.name + " is skipped from now on: " + reason + "; " + enable_hint(device);
            fs::remove(build_deaths_, error);
        }
    }
    // PoCL aborts the process when a kernel library of its cache is damaged: such files are
    // removed before PoCL can load them, and PoCL builds them anew.
    if (device::is_pocl(device) && skipped_.empty()) {
        for (const DriverCache& cache : caches_of(cache_root, device)) {
            if (cache.driver != "PoCL") continue;
            const std::vector<fs::path> removed = remove_damaged_pocl_libraries(cache.folder);
            if (!removed.empty())
                notes_.push_back("PoCL's cache " + cache.folder.string() + " held " + std::to_string(removed.size()) +
                                 " damaged kernel " + (removed.size() == 1 ? "library" : "libraries") + " (" +
                                 removed.front().string() + (removed.size() > 1 ? ", ..." : "") +
                                 "), which would have aborted the program: removed, PoCL builds them anew");
        }
    }
    // One process may use a device in several jobs at once: each has its own mark.
    static std::atomic<unsigned> marks_made{0};
    mark_ = folder / (mark_prefix + std::to_string(self) + "-" + std::to_string(marks_made++));
    fs::create_directories(folder, error);
    std::ofstream(mark_) << building_text << ": in use by process " << self << "\n";
    // A `cache clear` that began before this mark was written would empty the caches under the
    // build: it ends (or refuses, having seen the mark) before the build starts.
    wait_while_cache_is_cleared(cache_root);
}

void DeviceUseMark::built() {
    std::ofstream(mark_) << using_text << ": in use by process " << current_process_id() << "\n";
    std::error_code ignored;
    fs::remove(build_deaths_, ignored);
}

std::vector<LiveMark> live_marks(const fs::path& cache_root) {
    std::vector<LiveMark> marks;
    const std::uint64_t self = current_process_id();
    std::error_code error;
    for (fs::directory_iterator device(cache_root / "kernels", error), end; !error && device != end;
         device.increment(error)) {
        std::error_code inner;
        for (fs::directory_iterator entry(device->path(), inner), last; !inner && entry != last;
             entry.increment(inner)) {
            const std::uint64_t process = marked_process(entry->path());
            if (process == 0 || process == self || !process_running(process)) continue;
            marks.push_back(
                {process, device->path().filename().string(), first_line(entry->path()).rfind(building_text, 0) == 0});
        }
    }
    return marks;
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
