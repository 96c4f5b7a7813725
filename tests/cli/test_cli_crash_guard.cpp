// The start-up crash guard seen from the command line (engine/cl/device_use_mark.h): deaths that
// are kills, not the driver's, leave the device in use; the driver cache that the guard and
// `cache clear` empty is the one in use, also where the user pointed it; `cache clear` refuses
// while another process uses the caches; a damaged PoCL cache no longer aborts the first run.
// Deaths are made where they must happen (BACKPROP_INJECT_FAULT=crash:N kills the process in its
// Nth program build) or left as a dead process leaves them (its use mark), never by timing.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "engine/cl/device.h"
#include "engine/device/tuning_record.h"
#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/cli/suite_caches.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;
namespace fs = std::filesystem;

namespace {

// No process has this id: Linux gives out at most 2^22, and it fits any pid_t.
constexpr const char* dead_process = "2147483000";

std::size_t count_occurrences(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
    return count;
}

std::size_t files_with_extension(const fs::path& dir, const std::string& extension) {
    std::size_t count = 0;
    std::error_code ignored;
    for (fs::recursive_directory_iterator item(dir, ignored), end; item != end; item.increment(ignored))
        if (item->is_regular_file() && item->path().extension() == extension) ++count;
    return count;
}

// The kernel cache's folder of the one device a warm run filled.
fs::path device_folder(const fs::path& cache_root) {
    for (const auto& entry : fs::directory_iterator(cache_root / "kernels"))
        if (entry.is_directory()) return entry.path();
    FAIL("no device folder in " << (cache_root / "kernels").string());
    return {};
}

// The driver caches go where each test says, whatever the environment of the tests set.
// Every device counts as tuned with today's tiles (device/tuning_record.h) in this cache root: for
// a test of the guard's builds, which a tuning on a busy machine could change by choosing other
// tiles for one program after the guard's separate build.
void seed_todays_tuning(const std::filesystem::path& cache_root) {
    for (const bps::cl::DeviceInfo& device : bps::cl::discover_devices()) {
        bps::device::TuningRecord record;
        record.timed = {{bps::device::KernelTuning{}, 1.0, ""}};
        record.date = "seeded by the test";
        REQUIRE(bps::device::store_tuning(cache_root, device, record));
    }
}

struct DriverCachesUnset {
    ScopedEnvironment pocl{"POCL_CACHE_DIR", std::nullopt};
    ScopedEnvironment cuda{"CUDA_CACHE_PATH", std::nullopt};
    ScopedEnvironment neo{"NEO_CACHE_DIR", std::nullopt};
};

}  // namespace

TEST_CASE("two runs killed while building kernels leave the device in use: a separate build finishes first",
          "[cli][crash-guard]") {
    TempDir dir("cli-guard-killed");
    const DriverCachesUnset unset;
    seed_todays_tuning(dir.path());
    const std::string cache = "BACKPROP_CACHE_DIR=" + quote(dir.path()) + " ";
    // Each run dies in its first program build, as a kill during the build ends it: twice.
    for (int run = 0; run < 2; ++run) {
        const ProcessResult died = run_command(cache + "BACKPROP_INJECT_FAULT=crash:1 " + backprop("cache warm"));
        INFO(died.output);
        CHECK(died.exit_code != 0);
        CHECK(died.exit_code != 1);  // killed, not an error it reported
    }
    // The third run is not killed: before skipping the device, the guard builds in a separate
    // process, which finishes, so the device is used and this run loads what that one built.
    const ProcessResult third = run_command(cache + backprop("cache warm"));
    INFO(third.output);
    CHECK(third.exit_code == 0);
    CHECK_THAT(third.output, Catch::Contains("but a build in a separate process then finished, so its driver's "
                                             "compiler did not crash (was the program killed?): ") &&
                                 Catch::Contains(" is used"));
    CHECK_THAT(third.output, !Catch::Contains("is skipped"));
    CHECK(count_occurrences(third.output, "built from source") == 0);
    CHECK(count_occurrences(third.output, "loaded from cache") >= 1);
    const ProcessResult listed = run_command(cache + backprop("devices"));
    CHECK_THAT(listed.output, !Catch::Contains("is skipped"));
}

TEST_CASE("a run that ended abruptly costs no rebuild: the next keeps the cached kernels and empties PoCL's cache",
          "[cli][crash-guard]") {
    TempDir dir("cli-guard-kept");
    const DriverCachesUnset unset;
    seed_pocl_cache(dir.path() / "pocl");
    seed_tuning(dir.path());
    const std::string cache = "BACKPROP_CACHE_DIR=" + quote(dir.path()) + " ";
    const ProcessResult cold = run_command(cache + backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    const std::size_t programs = count_occurrences(cold.output, "built from source");
    REQUIRE(programs >= 1);
    // What a run killed while it trained leaves behind.
    std::ofstream(device_folder(dir.path()) / (std::string("in-use-") + dead_process)) << "using: in use\n";

    const ProcessResult next = run_command(cache + backprop("cache warm"));
    INFO(next.output);
    CHECK(next.exit_code == 0);
    CHECK_THAT(next.output, Catch::Contains("note: an earlier run (process " + std::string(dead_process) +
                                            ") ended abruptly while using ") &&
                                Catch::Contains("its cached kernels are kept"));
    CHECK(count_occurrences(next.output, "loaded from cache") == programs);
    CHECK(count_occurrences(next.output, "built from source") == 0);
}

TEST_CASE("the guard and cache clear empty the PoCL cache the user's POCL_CACHE_DIR points at, and only PoCL's",
          "[cli][crash-guard]") {
    TempDir dir("cli-guard-user-pocl");
    const DriverCachesUnset unset;
    const fs::path mine = dir.path() / "my-pocl";
    fs::create_directories(mine);
    std::ofstream(mine / "notes.txt") << "the user's own file";
    seed_pocl_cache(mine);
    seed_tuning(dir.path() / "cache");
    const std::string cache =
        "BACKPROP_CACHE_DIR=" + quote(dir.path() / "cache") + " POCL_CACHE_DIR=" + quote(mine) + " ";
    const ProcessResult cold = run_command(cache + backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    if (files_with_extension(mine, ".so") == 0) {
        WARN("the device is not PoCL (no kernel libraries in its cache); its cache is not tried");
        return;
    }
    std::ofstream(device_folder(dir.path() / "cache") / (std::string("in-use-") + dead_process)) << "using: in use\n";
    const ProcessResult recovered = run_command(cache + backprop("cache warm"));
    INFO(recovered.output);
    CHECK(recovered.exit_code == 0);
    CHECK_THAT(recovered.output,
               Catch::Contains("PoCL's cache " + mine.string() + " (set by POCL_CACHE_DIR) was cleared"));

    REQUIRE(run_command(cache + backprop("cache warm")).exit_code == 0);
    REQUIRE(files_with_extension(mine, ".so") > 0);
    const ProcessResult cleared = run_command(cache + backprop("cache clear"));
    INFO(cleared.output);
    CHECK(cleared.exit_code == 0);
    CHECK_THAT(cleared.output,
               Catch::Contains("emptied PoCL's cache in " + mine.string() + " (set by POCL_CACHE_DIR)"));
    CHECK(files_with_extension(mine, ".so") == 0);
    CHECK(fs::exists(mine / "notes.txt"));  // the folder is the user's: only PoCL's own goes
}

TEST_CASE("a damaged PoCL cache the user's POCL_CACHE_DIR points at no longer aborts a run", "[cli][crash-guard]") {
    TempDir dir("cli-guard-user-pocl-damage");
    const DriverCachesUnset unset;
    const fs::path mine = dir.path() / "my-pocl";
    seed_pocl_cache(mine);
    seed_tuning(dir.path() / "cache");
    const std::string cache =
        "BACKPROP_CACHE_DIR=" + quote(dir.path() / "cache") + " POCL_CACHE_DIR=" + quote(mine) + " ";
    const ProcessResult cold = run_command(cache + backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    const std::size_t programs = count_occurrences(cold.output, "built from source");
    const std::size_t libraries = files_with_extension(mine, ".so");
    if (libraries == 0) {
        WARN("the device is not PoCL (no kernel libraries in its cache); its damage is not tried");
        return;
    }
    // PoCL dlopens its cached kernel libraries: cut short, they abort the process inside PoCL.
    for (const auto& item : fs::recursive_directory_iterator(mine))
        if (item.is_regular_file() && item.path().extension() == ".so") fs::resize_file(item.path(), 100);
    for (const auto& item : fs::recursive_directory_iterator(dir.path() / "cache" / "kernels"))
        if (item.is_regular_file() && item.path().extension() == ".bin") fs::remove(item.path());
    for (int run = 0; run < 2; ++run) {
        const ProcessResult next = run_command(cache + backprop("cache warm"));
        INFO(next.output);
        CHECK(next.exit_code == 0);
        CHECK_THAT(next.output, !Catch::Contains("is skipped"));
        CHECK(count_occurrences(next.output, "built from source") +
                  count_occurrences(next.output, "loaded from cache") ==
              programs);
        if (run == 0)
            CHECK_THAT(next.output, Catch::Contains("note: PoCL's cache " + mine.string() + " held " +
                                                    std::to_string(libraries) + " damaged kernel libraries"));
    }
}

TEST_CASE("cache clear refuses while another process builds kernels, names it, and removes nothing",
          "[cli][crash-guard]") {
    TempDir dir("cli-guard-clear-busy");
    const DriverCachesUnset unset;
    seed_pocl_cache(dir.path() / "pocl");
    seed_tuning(dir.path());
    const std::string cache = "BACKPROP_CACHE_DIR=" + quote(dir.path()) + " ";
    REQUIRE(run_command(cache + backprop("cache warm")).exit_code == 0);
    const std::size_t entries = files_with_extension(dir.path() / "kernels", ".bin");
    const std::size_t libraries = files_with_extension(dir.path() / "pocl", ".so");
    const fs::path folder = device_folder(dir.path());
    // The shell's own process builds (its mark, with its id $$) while `cache clear` runs: it is
    // alive until clear has ended, as a builder would be. No timing is involved.
    const std::string mark = quote(folder) + "/in-use-$$-0";
    const ProcessResult refused =
        run_command("echo 'building: in use' > " + mark + "; " + cache + backprop("cache clear") +
                    "; status=$?; echo \"shell $$\"; rm " + mark + "; exit $status");
    INFO(refused.output);
    CHECK(refused.exit_code == 1);
    const std::string shell = refused.output.substr(refused.output.rfind("shell ") + 6);
    CHECK_THAT(refused.output, Catch::Contains("backprop cache: error: process " + shell.substr(0, shell.find('\n')) +
                                               " is building kernels in " + folder.string()) &&
                                   Catch::Contains("nothing was cleared: clear again once it has ended"));
    CHECK(files_with_extension(dir.path() / "kernels", ".bin") == entries);
    CHECK(files_with_extension(dir.path() / "pocl", ".so") == libraries);

    // Once that process has ended, its mark no longer holds the clear back.
    std::ofstream(folder / (std::string("in-use-") + dead_process)) << "building: in use\n";
    const ProcessResult cleared = run_command(cache + backprop("cache clear"));
    INFO(cleared.output);
    CHECK(cleared.exit_code == 0);
    CHECK(files_with_extension(dir.path() / "kernels", ".bin") == 0);
}
