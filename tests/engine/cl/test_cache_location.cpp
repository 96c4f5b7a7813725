#include <catch2/catch.hpp>
#include <cstdlib>

#include "engine/cl/cache_location.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {
std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
}
}  // namespace

TEST_CASE("BACKPROP_CACHE_DIR moves the whole cache and kernels go in its kernels folder") {
    const fs::path chosen = fs::temp_directory_path() / "bps-chosen-cache";
    {
        test::ScopedEnvironment env("BACKPROP_CACHE_DIR", chosen.string());
        CHECK(cl::cache_root() == chosen);
        CHECK(cl::kernel_cache_dir() == chosen / "kernels");
    }
    test::ScopedEnvironment unset("BACKPROP_CACHE_DIR", std::nullopt);
    CHECK(cl::cache_root().filename() == "backprop-studio");
    CHECK(cl::cache_root() != chosen);
}

#if defined(__linux__)
TEST_CASE("on Linux the cache follows XDG_CACHE_HOME, then ~/.cache") {
    test::ScopedEnvironment unset("BACKPROP_CACHE_DIR", std::nullopt);
    test::ScopedEnvironment home("HOME", std::string("/home/someone"));
    {
        test::ScopedEnvironment xdg("XDG_CACHE_HOME", std::string("/var/tmp/xdg"));
        CHECK(cl::cache_root() == fs::path("/var/tmp/xdg/backprop-studio"));
    }
    {
        // The XDG specification says a relative value is invalid and ignored.
        test::ScopedEnvironment xdg("XDG_CACHE_HOME", std::string("relative/cache"));
        CHECK(cl::cache_root() == fs::path("/home/someone/.cache/backprop-studio"));
    }
    test::ScopedEnvironment xdg("XDG_CACHE_HOME", std::nullopt);
    CHECK(cl::cache_root() == fs::path("/home/someone/.cache/backprop-studio"));
}
#endif

TEST_CASE("the drivers' caches are pointed under ours unless the user set them") {
    test::TempDir dir("vendor-caches");
    test::ScopedEnvironment pocl("POCL_CACHE_DIR", std::nullopt);
    test::ScopedEnvironment cuda("CUDA_CACHE_PATH", std::string("/users/own/cuda"));
    test::ScopedEnvironment neo_dir("NEO_CACHE_DIR", std::nullopt);
    test::ScopedEnvironment neo_persist("NEO_CACHE_PERSISTENT", std::nullopt);

    const std::vector<std::string> set = cl::point_vendor_caches_under(dir.path());
    REQUIRE(set.size() == 3);
    CHECK(set[0] == "POCL_CACHE_DIR=" + (dir.path() / "pocl").string());
    CHECK(set[1] == "NEO_CACHE_DIR=" + (dir.path() / "neo").string());
    CHECK(set[2] == "NEO_CACHE_PERSISTENT=1");
    CHECK(environment("POCL_CACHE_DIR") == (dir.path() / "pocl").string());
    CHECK(environment("CUDA_CACHE_PATH") == std::string("/users/own/cuda"));
    CHECK(environment("NEO_CACHE_PERSISTENT") == std::string("1"));
    CHECK(fs::is_directory(dir.path() / "pocl"));
    CHECK(fs::is_directory(dir.path() / "neo"));
    CHECK_FALSE(fs::exists(dir.path() / "cuda"));
}
