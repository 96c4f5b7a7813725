#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/cli/cli.h"
#include "tests/cli/suite_caches.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

std::size_t count_occurrences(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
    return count;
}

std::string count_of(std::size_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::size_t files_with_extension(const std::filesystem::path& dir, const std::string& extension) {
    std::size_t count = 0;
    for (const auto& item : std::filesystem::recursive_directory_iterator(dir))
        if (item.is_regular_file() && item.path().extension() == extension) ++count;
    return count;
}

nlohmann::json cache_info() {
    const ProcessResult result = run_command_stdout(backprop("cache info --json"));
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.output);
}

}  // namespace

TEST_CASE("cache warm builds the engine's kernels once and the second run loads every one from the cache") {
    TempDir dir("cli-cache");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    // PoCL's cache beside ours: clear below empties the one in use, which other tests may share.
    ScopedEnvironment pocl("POCL_CACHE_DIR", std::nullopt);
    seed_pocl_cache(dir.path() / "pocl");
    seed_tuning(dir.path());

    const ProcessResult cold = run_command(backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    const std::size_t programs = count_occurrences(cold.output, "built from source");
    CHECK(programs >= 1);
    CHECK(count_occurrences(cold.output, "loaded from cache") == 0);

    const ProcessResult warm = run_command(backprop("cache warm"));
    REQUIRE(warm.exit_code == 0);
    CHECK(count_occurrences(warm.output, "loaded from cache") == programs);
    CHECK_THAT(warm.output, Catch::Contains(std::to_string(programs) + " from cache, 0 built"));

    const nlohmann::json info = cache_info();
    CHECK(info["location"] == (dir.path() / "kernels").string());
    CHECK(info["entries"] == programs);
    CHECK(info["bytes"].get<std::uint64_t>() > 0);
    REQUIRE(info["devices"].size() == 1);
    CHECK(info["devices"][0]["entries"] == programs);
    CHECK_FALSE(info["devices"][0]["device"].get<std::string>().empty());

    const ProcessResult text = run_command(backprop("cache info"));
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.output, Catch::Contains((dir.path() / "kernels").string()));
    CHECK_THAT(text.output, Catch::Contains(count_of(programs, "program") + ", "));

    const ProcessResult cleared = run_command(backprop("cache clear"));
    CHECK(cleared.exit_code == 0);
    CHECK_THAT(cleared.output, Catch::Contains("removed " + count_of(programs, "cached program") + " from"));
    CHECK(cache_info()["entries"] == 0);
}

TEST_CASE("cache warm tunes an untuned device once, keeps the winner, and devices shows it") {
    TempDir dir("cli-tuning");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    const ProcessResult before = run_command_stdout(backprop("devices"));
    REQUIRE(before.exit_code == 0);
    CHECK_THAT(before.output,
               Catch::Contains("(not tuned yet: `backprop cache warm` or the studio's warm-up tunes them)"));

    const ProcessResult cold = run_command(backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    CHECK_THAT(cold.output, Catch::Contains("tuning the engine's kernels for "));
    // Each variant timed says what a pass took; one is chosen; the line after says what was kept.
    CHECK(count_occurrences(cold.output, " a pass") >= 1);
    CHECK(count_occurrences(cold.output, "(chosen)") == 1);
    const std::size_t tuned_at = cold.output.find("tuned in ");
    REQUIRE(tuned_at != std::string::npos);
    const std::string summary = cold.output.substr(tuned_at, cold.output.find('\n', tuned_at) - tuned_at);
    const std::string choice = summary.substr(summary.find(": ") + 2);  // "<tiles>: <how> (<n> of <m> ...)"

    // The record is on disk, as JSON naming the device, and devices shows the same line.
    std::size_t records = 0;
    for (const auto& item : std::filesystem::directory_iterator(dir.path() / "tuning")) {
        ++records;
        std::ifstream file(item.path());
        const nlohmann::json record = nlohmann::json::parse(file);
        CHECK(record["format"] == "backprop-studio-kernel-tuning");
        CHECK(record["timed"].size() >= 1);
    }
    CHECK(records == 1);
    const ProcessResult after = run_command_stdout(backprop("devices"));
    REQUIRE(after.exit_code == 0);
    CHECK_THAT(after.output, Catch::Contains(" kernels: " + choice));
    const ProcessResult json = run_command_stdout(backprop("devices --json"));
    REQUIRE(json.exit_code == 0);
    CHECK(nlohmann::json::parse(json.output)["devices"][0]["tuning_summary"] == choice);

    // Tuned once: the next warm-up only loads.
    const ProcessResult warm = run_command(backprop("cache warm"));
    REQUIRE(warm.exit_code == 0);
    CHECK_THAT(warm.output, !Catch::Contains("tuning"));
    CHECK_THAT(warm.output, Catch::Contains(" 0 built"));
}

TEST_CASE("two processes warming the same cache at once both succeed and leave one valid entry per program") {
    TempDir dir("cli-cache-race");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    ProcessResult first, second;
    std::thread a([&] { first = run_command(backprop("cache warm")); });
    std::thread b([&] { second = run_command(backprop("cache warm")); });
    a.join();
    b.join();
    INFO(first.output << second.output);
    CHECK(first.exit_code == 0);
    CHECK(second.exit_code == 0);
    const std::size_t programs =
        count_occurrences(first.output, "built from source") + count_occurrences(first.output, "loaded from cache");
    REQUIRE(programs >= 1);

    CHECK(files_with_extension(dir.path() / "kernels", ".tmp") == 0);
    const ProcessResult after = run_command(backprop("cache warm"));
    CHECK(after.exit_code == 0);
    CHECK(count_occurrences(after.output, "built from source") == 0);
    CHECK(count_occurrences(after.output, "loaded from cache") == programs);
    CHECK(cache_info()["entries"] == programs);
    CHECK(files_with_extension(dir.path() / "kernels", ".bin") == programs);
}

TEST_CASE("PoCL's own cache goes under the kernel cache folder unless the user set POCL_CACHE_DIR") {
    TempDir dir("cli-cache-vendor");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    ScopedEnvironment pocl("POCL_CACHE_DIR", std::nullopt);
    seed_tuning(dir.path());  // not PoCL's cache: the test is that PoCL fills its own
    const ProcessResult result = run_command(backprop("cache warm"));
    REQUIRE(result.exit_code == 0);
    const nlohmann::json devices = nlohmann::json::parse(run_command_stdout(backprop("devices --json")).output);
    const std::string platform = devices["devices"][devices["chosen"].get<std::size_t>()]["platform"];
    if (platform != "Portable Computing Language") {
        WARN("the device is not PoCL; its cache folder is not checked");
        return;
    }
    REQUIRE(std::filesystem::is_directory(dir.path() / "pocl"));
    CHECK_FALSE(std::filesystem::is_empty(dir.path() / "pocl"));
}

TEST_CASE(
    "a damaged PoCL cache no longer aborts the next run: the damaged libraries are removed first, with a note, and "
    "clear empties PoCL's cache",
    "[crash-guard]") {
    TempDir dir("cli-cache-pocl-damage");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    ScopedEnvironment pocl("POCL_CACHE_DIR", std::nullopt);  // PoCL's cache goes under dir, ours to clear
    seed_pocl_cache(dir.path() / "pocl");
    seed_tuning(dir.path());
    const ProcessResult cold = run_command(backprop("cache warm"));
    REQUIRE(cold.exit_code == 0);
    const std::size_t programs = count_occurrences(cold.output, "built from source");
    const std::filesystem::path pocl_cache = dir.path() / "pocl";
    const std::size_t libraries = files_with_extension(pocl_cache, ".so");
    if (libraries == 0) {
        WARN("the device is not PoCL (no kernel libraries in its cache); its damage is not tried");
        return;
    }
    // PoCL dlopens its cached kernel libraries: cut short, they aborted the process inside PoCL
    // (exit 134) before the guard checked them.
    for (const auto& item : std::filesystem::recursive_directory_iterator(pocl_cache))
        if (item.is_regular_file() && item.path().extension() == ".so") std::filesystem::resize_file(item.path(), 100);
    for (const auto& item : std::filesystem::recursive_directory_iterator(dir.path() / "kernels"))
        if (item.is_regular_file() && item.path().extension() == ".bin") std::filesystem::remove(item.path());

    const ProcessResult recovered = run_command(backprop("cache warm"));
    INFO(recovered.output);
    CHECK(recovered.exit_code == 0);
    CHECK_THAT(recovered.output, Catch::Contains("note: PoCL's cache " + pocl_cache.string() + " held " +
                                                 std::to_string(libraries) + " damaged kernel librar") &&
                                     Catch::Contains("which would have aborted the program: removed, PoCL builds "
                                                     "them anew"));
    CHECK(count_occurrences(recovered.output, "built from source") == programs);

    const ProcessResult again = run_command(backprop("cache warm"));
    CHECK(again.exit_code == 0);
    CHECK(count_occurrences(again.output, "loaded from cache") == programs);
    CHECK_THAT(again.output, !Catch::Contains("note:"));

    const ProcessResult cleared = run_command(backprop("cache clear"));
    CHECK(cleared.exit_code == 0);
    CHECK_THAT(cleared.output, Catch::Contains("emptied PoCL's cache in " + pocl_cache.string()));
    CHECK(std::filesystem::is_directory(pocl_cache));
    CHECK(std::filesystem::is_empty(pocl_cache));
}

TEST_CASE("cache clear empties the drivers' caches kept beside the kernel cache and leaves others alone") {
    TempDir dir("cli-cache-clear-drivers");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", dir.path().string());
    // Beside ours: none of them pointed elsewhere by the environment of the tests.
    ScopedEnvironment pocl("POCL_CACHE_DIR", std::nullopt);
    ScopedEnvironment cuda("CUDA_CACHE_PATH", std::nullopt);
    ScopedEnvironment neo("NEO_CACHE_DIR", std::nullopt);
    for (const char* driver : {"pocl", "cuda", "neo"}) {
        std::filesystem::create_directories(dir.path() / driver / "AB" / "CDEF");
        std::ofstream(dir.path() / driver / "AB" / "CDEF" / "kernel.so") << "compiled";
    }
    std::filesystem::create_directories(dir.path() / "mine");
    std::ofstream(dir.path() / "mine" / "keep.txt") << "not a cache";

    const ProcessResult cleared = run_command(backprop("cache clear"));
    INFO(cleared.output);
    CHECK(cleared.exit_code == 0);
    for (const auto& [driver, folder] : {std::pair{"PoCL", "pocl"}, {"NVIDIA", "cuda"}, {"Intel", "neo"}}) {
        CHECK_THAT(cleared.output,
                   Catch::Contains(std::string("emptied ") + driver + "'s cache in " + (dir.path() / folder).string()));
        CHECK(std::filesystem::is_empty(dir.path() / folder));
    }
    CHECK(std::filesystem::exists(dir.path() / "mine" / "keep.txt"));
}

TEST_CASE("cache with no or an unknown action is a usage error") {
    CHECK(run_command(backprop("cache")).exit_code == 2);
    const ProcessResult unknown = run_command(backprop("cache explode"));
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.output, Catch::Contains("unknown cache action 'explode'"));
}
