#pragma once
// `cache clear` and the processes that build kernels take turns: emptying PoCL's cache while
// another process builds makes files vanish under it, and PoCL aborts that process.
//
// While a CacheClearing lives, a file "clearing-PID" in the kernel cache folder says that this
// process empties the caches. Having written it, the clearing refuses when another process holds
// a use mark (device_use_mark.h), and names it. A process that writes its use mark looks for that
// file after, and waits (bounded) while a running process clears. Each writes its own file before
// it looks for the other's, so of two that start together at least one sees the other.
#include <filesystem>
#include <stdexcept>

namespace bps::cl {

// Another process uses the caches; the message names it and says what to do.
class CacheInUseError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class CacheClearing {
public:
    // Throws CacheInUseError when a running process has a use mark under cache_root.
    explicit CacheClearing(const std::filesystem::path& cache_root);
    ~CacheClearing();
    CacheClearing(const CacheClearing&) = delete;
    CacheClearing& operator=(const CacheClearing&) = delete;

private:
    std::filesystem::path marker_;
};

// Returns once no running process clears the caches under cache_root, or after 60 s (a clear
// takes well under a second; a marker whose process died is ignored).
void wait_while_cache_is_cleared(const std::filesystem::path& cache_root);

}  // namespace bps::cl
