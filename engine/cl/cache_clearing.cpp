#include "engine/cl/cache_clearing.h"

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "engine/cl/device_use_mark.h"
#include "engine/cl/process_identity.h"

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

constexpr const char* clearing_prefix = "clearing-";

// Whether a running process other than this one has a clearing marker under cache_root.
bool cleared_by_another(const fs::path& cache_root) {
    const std::string prefix = clearing_prefix;
    std::error_code error;
    for (fs::directory_iterator entry(cache_root / "kernels", error), end; !error && entry != end;
         entry.increment(error)) {
        const std::string name = entry->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const std::uint64_t process = std::stoull(digits);
        if (process != current_process_id() && process_running(process)) return true;
    }
    return false;
}

}  // namespace

CacheClearing::CacheClearing(const fs::path& cache_root)
    : marker_(cache_root / "kernels" / (clearing_prefix + std::to_string(current_process_id()))) {
    std::error_code error;
    fs::create_directories(marker_.parent_path(), error);
    std::ofstream(marker_) << "clearing: process " << current_process_id() << "\n";
    const std::vector<LiveMark> marks = live_marks(cache_root);
    if (marks.empty()) return;
    fs::remove(marker_, error);
    const LiveMark& mark = marks.front();
    throw CacheInUseError("process " + std::to_string(mark.process) + " is " +
                          (mark.building ? "building kernels in " : "using the kernels in ") +
                          (cache_root / "kernels" / mark.device_folder).string() +
                          (marks.size() > 1 ? " (and " + std::to_string(marks.size() - 1) + " more processes)" : "") +
                          ", and emptying the caches under it could make its driver abort it; nothing was "
                          "cleared: clear again once it has ended");
}

CacheClearing::~CacheClearing() {
    std::error_code ignored;
    fs::remove(marker_, ignored);
}

void wait_while_cache_is_cleared(const fs::path& cache_root) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (cleared_by_another(cache_root) && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace bps::cl
