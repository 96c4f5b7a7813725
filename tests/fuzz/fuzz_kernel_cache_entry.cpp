// libFuzzer target: a kernel-cache entry file. The input is written where the entry for a fixed
// key lives and KernelCache::load reads it: pure C++, no OpenCL. load() never throws; a damaged
// entry is deleted and reported as a miss.
#include "engine/kernel_cache/kernel_cache.h"
#include "tests/fuzz/kernel_cache_key.h"
#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bps::cl::KernelCache cache(bps::fuzz::scratch_folder() / "kernels");
    static const bps::cl::CacheKey key = bps::fuzz::fuzz_cache_key();
    static const std::filesystem::path entry = cache.entry_path(key);
    std::filesystem::create_directories(entry.parent_path());
    bps::fuzz::write_bytes(entry, data, size);
    (void)cache.load(key);
    return 0;
}
