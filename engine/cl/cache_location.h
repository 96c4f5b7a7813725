#pragma once
// Where Backprop Studio keeps compiled kernels, and pointing the drivers' own caches there.
#include <filesystem>
#include <string>
#include <vector>

namespace bps::cl {

// BACKPROP_CACHE_DIR when set and non-empty; else the platform's cache folder +
// "backprop-studio" (Linux: $XDG_CACHE_HOME if absolute, else ~/.cache; macOS:
// ~/Library/Caches; Windows: %LOCALAPPDATA%), falling back to the temporary folder.
std::filesystem::path cache_root();

// cache_root()/kernels: our program binaries (a KernelCache folder).
std::filesystem::path kernel_cache_dir();

// A driver's own cache folder under cache_root, with the driver's name: the folders that
// point_vendor_caches_under points the drivers at, and that `cache clear` and a crash inside a
// driver (engine/cl/device_use_mark.h) empty.
struct DriverCache {
    std::string driver;            // "PoCL", "NVIDIA", "Intel"
    std::string variable;          // the environment variable that points it: "POCL_CACHE_DIR", ...
    std::filesystem::path folder;  // cache_root / "pocl", "cuda", "neo", or where the user's variable points
    bool set_by_user = false;      // the folder is the user's variable's, not one beside ours
};
std::vector<DriverCache> driver_caches(const std::filesystem::path& cache_root);

// The driver caches to empty when a driver may have crashed on one of its files, or on `cache
// clear`: those beside cache_root, then each that the user's own variable points elsewhere (PoCL
// reads POCL_CACHE_DIR whatever we set), with set_by_user.
std::vector<DriverCache> driver_caches_to_clear(const std::filesystem::path& cache_root);

// Removes everything inside each driver cache folder beside ours (the folders stay, so the
// environment that points at them stays valid); returns how many files and folders were removed.
// In a folder the user chose, only what is surely the driver's own goes: PoCL's entries
// (pocl_cache_check.h); nothing of NVIDIA's or Intel's (see driver_cache_advice).
std::size_t clear_driver_caches(const std::vector<DriverCache>& caches);

// For a user's folder that clear_driver_caches cannot empty safely: what to delete by hand
// ("delete the files in FOLDER, which NEO_CACHE_DIR points Intel's driver at"); "" otherwise.
std::string driver_cache_advice(const DriverCache& cache);

// Points vendor driver caches under cache_root where the user has not set them:
// POCL_CACHE_DIR -> root/pocl, CUDA_CACHE_PATH -> root/cuda, NEO_CACHE_DIR -> root/neo with
// NEO_CACHE_PERSISTENT=1 (Intel), so CLBlast's kernels persist too. Call before the first
// OpenCL call. A variable whose folder cannot be created is left unset. Returns what it set,
// as "NAME=value" lines, in that order.
std::vector<std::string> point_vendor_caches_under(const std::filesystem::path& cache_root);

// Points BACKPROP_CACHE_DIR at `root` and every driver cache variable at its folder under `root`
// (created), whatever the user set, for as long as the object lives; then puts back what was
// there. A child process started meanwhile runs with exactly these caches: `backprop bench`
// times a cold start (an empty root) and a warm one (the root the cold start filled) so.
class ChildCacheEnvironment {
public:
    explicit ChildCacheEnvironment(const std::filesystem::path& root);
    ~ChildCacheEnvironment();
    ChildCacheEnvironment(const ChildCacheEnvironment&) = delete;
    ChildCacheEnvironment& operator=(const ChildCacheEnvironment&) = delete;

private:
    struct Saved {
        std::string name;
        bool was_set = false;
        std::string value;
    };
    std::vector<Saved> saved_;
};

// point_vendor_caches_under(cache_root()).
std::vector<std::string> point_vendor_caches_into_cache_root();

}  // namespace bps::cl
