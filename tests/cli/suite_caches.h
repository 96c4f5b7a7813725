#pragma once
// The caches that the suite's processes share, for the tests of the kernel cache and its crash
// guard. packaging/setup-debian.sh warms them (`backprop cache warm`) before ctest starts and
// names them in BACKPROP_CACHE_DIR and POCL_CACHE_DIR. Each of those tests keeps caches of its own
// in a temporary folder, and most start with a `cache warm` whose time, on PoCL, is PoCL compiling
// every program to a kernel library (about 30 s on two cores): a copy of PoCL's compiled
// libraries and of the suite's tuning spares that compile, and the test's own cache still starts
// empty, so every program is still built, stored and loaded as before.
#include <filesystem>

namespace bps::test {

// Copies the files of the suite's PoCL cache into `pocl_cache` (created if missing). Copies, never
// links: tests damage the libraries in their copy. Does nothing where the tests' environment named
// no PoCL cache, or one too large to copy for each test (a user's own, say).
void seed_pocl_cache(const std::filesystem::path& pocl_cache);

// Copies the suite's tuning records into the kernel cache root `cache_root`, so that its first
// `cache warm` builds with the tiles the suite's warm chose (the programs PoCL has compiled)
// instead of tuning again. Does nothing where the environment named no kernel cache.
void seed_tuning(const std::filesystem::path& cache_root);

}  // namespace bps::test
