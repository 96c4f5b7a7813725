#include "tests/cli/suite_caches.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace bps::test {
namespace {

namespace fs = std::filesystem;

// Past this size a PoCL cache is not the suite's few programs but a user's own: not copied.
constexpr std::uintmax_t largest_seed_bytes = 256ull << 20;

std::optional<fs::path> variable_at_start(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return fs::path(value);
}

// Read when the process starts: the tests unset these variables for the runs they make.
const std::optional<fs::path> suite_pocl_cache = variable_at_start("POCL_CACHE_DIR");
const std::optional<fs::path> suite_kernel_cache = variable_at_start("BACKPROP_CACHE_DIR");

std::uintmax_t bytes_under(const fs::path& folder) {
    std::uintmax_t bytes = 0;
    std::error_code error;
    for (fs::recursive_directory_iterator item(folder, error), end; !error && item != end; item.increment(error))
        if (item->is_regular_file(error)) bytes += item->file_size(error);
    return bytes;
}

// PoCL writes each file of its cache under a temporary name and renames it when whole
// (pocl_write_file, llvm_codegen): "program.bc_XXXXXX.temp", and a kernel library
// "KERNEL/GROUP/KERNEL.so" as "KERNEL.so_XXXXXX.so". The kernel cache's own files (the tuning
// records) are written as NAME.tmp first. Those are another process's unfinished files.
bool unfinished_file(const fs::path& file) {
    if (file.extension() == ".temp" || file.extension() == ".tmp") return true;
    return file.extension() == ".so" && file.stem() != file.parent_path().parent_path().filename();
}

// Regular files only, each on its own: other processes of the suite add to the source meanwhile.
// A file that goes or cannot be read is skipped: the test's run compiles it, as without a seed.
void copy_files(const fs::path& from, const fs::path& to) {
    std::error_code error;
    for (fs::recursive_directory_iterator item(from, error), end; !error && item != end; item.increment(error)) {
        std::error_code skipped;
        if (!item->is_regular_file(skipped) || unfinished_file(item->path())) continue;
        const fs::path target = to / fs::relative(item->path(), from, skipped);
        if (skipped) continue;
        fs::create_directories(target.parent_path(), skipped);
        fs::copy_file(item->path(), target, fs::copy_options::skip_existing, skipped);
    }
}

}  // namespace

void seed_pocl_cache(const fs::path& pocl_cache) {
    fs::create_directories(pocl_cache);
    if (!suite_pocl_cache || !fs::is_directory(*suite_pocl_cache)) return;
    if (bytes_under(*suite_pocl_cache) > largest_seed_bytes) return;
    copy_files(*suite_pocl_cache, pocl_cache);
}

void seed_tuning(const fs::path& cache_root) {
    if (!suite_kernel_cache || !fs::is_directory(*suite_kernel_cache / "tuning")) return;
    copy_files(*suite_kernel_cache / "tuning", cache_root / "tuning");
}

}  // namespace bps::test
