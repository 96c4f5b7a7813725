#include <catch2/catch.hpp>
#include <fstream>

#include "engine/cl/cache_clearing.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/pocl_cache_check.h"
#include "engine/cl/process_identity.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

// No process has this id: Linux gives out at most 2^22, and it fits any pid_t.
constexpr std::uint64_t dead_process = 2147483000;

device::DeviceDescription pocl_device(const std::string& name) {
    device::DeviceDescription device;
    device.platform_name = "Portable Computing Language";
    device.platform_version = "OpenCL 3.0 PoCL 3.1";
    device.name = name;
    device.driver_version = "3.1";
    return device;
}

// A cache entry of `device`, as the OpenCL layer would store it; returns its path.
fs::path store_entry(const fs::path& root, const device::DeviceDescription& device) {
    cl::KernelCache cache(root / "kernels");
    const cl::CacheKey key{"kernel void k() {}",    {},          device.platform_name,
                           device.platform_version, device.name, device.driver_version};
    REQUIRE(cache.store(key, {1, 2, 3, 4}));
    return cache.entry_path(key);
}

void touch(const fs::path& file, const std::string& text = "x") {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// The drivers' caches go beside the kernel cache, whatever the environment of the tests says.
struct DriverCachesBesideOurs {
    test::ScopedEnvironment pocl{"POCL_CACHE_DIR", std::nullopt};
    test::ScopedEnvironment cuda{"CUDA_CACHE_PATH", std::nullopt};
    test::ScopedEnvironment neo{"NEO_CACHE_DIR", std::nullopt};
};

// A process-wide build checker for one test: counts its calls and answers `outcome`.
struct FakeBuildChecker {
    int calls = 0;
    explicit FakeBuildChecker(cl::BuildCheck::Outcome outcome) {
        cl::set_build_checker([this, outcome](const device::DeviceDescription&) {
            ++calls;
            return cl::BuildCheck{outcome, "checked"};
        });
    }
    ~FakeBuildChecker() { cl::set_build_checker({}); }
    FakeBuildChecker(const FakeBuildChecker&) = delete;
    FakeBuildChecker& operator=(const FakeBuildChecker&) = delete;
};

// A whole little-endian ELF64 file of 120 bytes: its header, one program header, and a segment
// that covers the file; `bytes` of it are written.
void write_elf(const fs::path& file, std::size_t bytes = 120) {
    std::vector<unsigned char> data(120, 0);
    const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::copy(std::begin(ident), std::end(ident), data.begin());
    data[16] = 3;   // ET_DYN
    data[32] = 64;  // e_phoff
    data[54] = 56;  // e_phentsize
    data[56] = 1;   // e_phnum
    data[64] = 1;   // PT_LOAD at offset 0, 120 bytes in the file
    data[64 + 32] = 120;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(bytes));
}

}  // namespace

TEST_CASE("the current process runs, and an id no process has does not") {
    CHECK(cl::process_running(cl::current_process_id()));
    CHECK_FALSE(cl::process_running(dead_process));
    CHECK_FALSE(cl::process_running(0));
}

TEST_CASE("a mark is written while in use and removed after, and with no earlier mark nothing is cleared") {
    test::TempDir root("use-mark-clean");
    const device::DeviceDescription device = pocl_device("cpu-one");
    const fs::path entry = store_entry(root.path(), device);
    write_elf(root.path() / "pocl" / "AB" / "kernel.so");  // a whole kernel library
    fs::path mark;
    {
        const cl::DeviceUseMark in_use(root.path(), device);
        mark = in_use.path();
        CHECK(in_use.notes().empty());
        CHECK(fs::exists(mark));
        CHECK(mark.parent_path() == entry.parent_path());  // beside the device's cached programs
    }
    CHECK_FALSE(fs::exists(mark));
    CHECK(fs::exists(entry));
    CHECK(fs::exists(root.path() / "pocl" / "AB" / "kernel.so"));
}

TEST_CASE("a mark left by a process that died clears PoCL's cache and keeps the device's cached programs, with a note",
          "[crash-guard]") {
    const DriverCachesBesideOurs beside;
    test::TempDir root("use-mark-dead");
    const device::DeviceDescription device = pocl_device("cpu-one");
    const device::DeviceDescription other = pocl_device("cpu-two");
    const fs::path entry = store_entry(root.path(), device);
    const fs::path other_entry = store_entry(root.path(), other);
    touch(root.path() / "pocl" / "AB" / "CD" / "kernel.so");
    touch(root.path() / "cuda" / "kept");
    const fs::path dead_mark = cl::DeviceUseMark::mark_path(root.path(), device, dead_process);
    touch(dead_mark);

    const cl::DeviceUseMark in_use(root.path(), device);
    REQUIRE(in_use.notes().size() == 1);
    const std::string& note = in_use.notes().front();
    CHECK_THAT(note, Catch::Contains("process " + std::to_string(dead_process)) && Catch::Contains("cpu-one") &&
                         Catch::Contains("PoCL's cache " + (root.path() / "pocl").string() + " was cleared") &&
                         Catch::Contains("its cached kernels are kept"));
    CHECK_FALSE(fs::exists(dead_mark));
    // Our entries are written whole or not at all (and checked when loaded): a kill leaves none
    // broken, so the next start loads them instead of building everything anew.
    CHECK(fs::exists(entry));
    CHECK(fs::exists(other_entry));  // another device's programs stay
    CHECK(fs::is_directory(root.path() / "pocl"));
    CHECK(fs::is_empty(root.path() / "pocl"));
    CHECK(fs::exists(root.path() / "cuda" / "kept"));  // NVIDIA's cache is not PoCL's
    CHECK(fs::exists(in_use.path()));
}

TEST_CASE("a mark of a process that still runs is left alone, and so is its device's cache") {
    test::TempDir root("use-mark-alive");
    const device::DeviceDescription device = pocl_device("cpu-one");
    const fs::path entry = store_entry(root.path(), device);
    touch(root.path() / "pocl" / "kernel.so");
    // This process's id under another mark number: a second job of a process that runs.
    const fs::path live_mark = cl::DeviceUseMark::mark_path(root.path(), device, cl::current_process_id());
    touch(live_mark);
    {
        const cl::DeviceUseMark in_use(root.path(), device);
        CHECK(in_use.notes().empty());
        CHECK(in_use.path() != live_mark);
    }
    CHECK(fs::exists(live_mark));
    CHECK(fs::exists(entry));
    CHECK(fs::exists(root.path() / "pocl" / "kernel.so"));
}

TEST_CASE(
    "a dead process's mark leaves PoCL's cache alone while another job of this process uses the device, and says so",
    "[crash-guard]") {
    const DriverCachesBesideOurs beside;
    test::TempDir root("use-mark-own-job");
    const device::DeviceDescription device = pocl_device("cpu-one");
    write_elf(root.path() / "pocl" / "AB" / "CD" / "kernel.so");
    const fs::path dead_mark = cl::DeviceUseMark::mark_path(root.path(), device, dead_process);
    touch(dead_mark);
    const cl::DeviceUseMark first_job(root.path(), device);  // it clears: nothing used the device yet
    REQUIRE(first_job.notes().size() == 1);
    CHECK_THAT(first_job.notes().front(), Catch::Contains("was cleared"));
    write_elf(root.path() / "pocl" / "AB" / "CD" / "kernel.so");  // built by the first job
    touch(dead_mark);

    const cl::DeviceUseMark second_job(root.path(), device);
    REQUIRE(second_job.notes().size() == 1);
    CHECK_THAT(second_job.notes().front(),
               Catch::Contains("nothing was cleared") &&
                   Catch::Contains("its driver's cache is left as it is while another job of this program uses it"));
    CHECK(fs::exists(root.path() / "pocl" / "AB" / "CD" / "kernel.so"));
    CHECK_FALSE(fs::exists(dead_mark));  // the death is noted once
    CHECK(fs::exists(first_job.path()));
}

TEST_CASE("a device whose build killed the program twice, also after its caches were cleared, is skipped until enabled",
          "[crash-guard]") {
    const DriverCachesBesideOurs beside;
    test::TempDir root("use-mark-guard");
    device::DeviceDescription device = pocl_device("cpu-one");
    device.index = 3;
    const device::DeviceDescription other = pocl_device("cpu-two");
    const auto died_building = [&](std::uint64_t process) {
        touch(cl::DeviceUseMark::mark_path(root.path(), device, process), "building: in use by process x\n");
    };
    // The first death while building clears the caches and is remembered, no more.
    died_building(dead_process);
    {
        const cl::DeviceUseMark in_use(root.path(), device);
        CHECK(in_use.notes().size() == 1);
        CHECK(in_use.skipped().empty());
    }
    CHECK(cl::device_skip_reason(root.path(), device).empty());
    // A second one, with the caches already cleared, skips the device when no check in a
    // separate process can be made (no checker set): the caller builds nothing. Its cached
    // programs are suspect now, and go.
    died_building(dead_process + 1);
    const fs::path entry = store_entry(root.path(), device);
    {
        const cl::DeviceUseMark in_use(root.path(), device);
        CHECK_THAT(in_use.skipped(),
                   Catch::Equals("cpu-one is skipped from now on: the program died while building kernels for it "
                                 "(processes " +
                                 std::to_string(dead_process) + ", " + std::to_string(dead_process + 1) +
                                 "), also after its caches were cleared; run 'backprop devices --enable 3' to use it "
                                 "again"));
    }
    CHECK_FALSE(fs::exists(entry));
    CHECK_THAT(cl::device_skip_reason(root.path(), device),
               Catch::StartsWith("the program died while building kernels for it (processes ") &&
                   Catch::EndsWith("also after its caches were cleared; run 'backprop devices --enable 3' to use it "
                                   "again"));
    CHECK(cl::device_skip_reason(root.path(), other).empty());  // another device is not touched
    // Enabled again, it starts afresh: one more death while building is only remembered.
    CHECK(cl::enable_device(root.path(), device));
    CHECK_FALSE(cl::enable_device(root.path(), device));
    CHECK(cl::device_skip_reason(root.path(), device).empty());
    died_building(dead_process + 2);
    const cl::DeviceUseMark again(root.path(), device);
    CHECK(again.skipped().empty());
}

TEST_CASE("a death after the programs were built is not the compiler's, and a good build forgives an earlier one",
          "[crash-guard]") {
    test::TempDir root("use-mark-built");
    const DriverCachesBesideOurs beside;  // the dead marks below clear the driver cache in use
    const device::DeviceDescription device = pocl_device("cpu-one");
    // Died while building once; the next run built everything, then trained, and died training.
    touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process), "building: in use by process x\n");
    fs::path mark;
    {
        cl::DeviceUseMark in_use(root.path(), device);
        in_use.built();
        mark = in_use.path();
        std::ifstream in(mark);
        std::string text;
        std::getline(in, text);
        CHECK_THAT(text, Catch::StartsWith("using: "));
        fs::copy_file(mark, cl::DeviceUseMark::mark_path(root.path(), device, dead_process + 1));
    }
    // Neither death counts against the compiler now: the device is not skipped.
    touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process + 2), "building: in use by process x\n");
    const cl::DeviceUseMark in_use(root.path(), device);
    CHECK(in_use.notes().size() == 1);
    CHECK(in_use.skipped().empty());
    CHECK(cl::device_skip_reason(root.path(), device).empty());
}

TEST_CASE("a second death while building skips the device only when a build in a separate process dies too",
          "[crash-guard]") {
    const DriverCachesBesideOurs beside;
    test::TempDir root("use-mark-checked");
    const device::DeviceDescription device = pocl_device("cpu-one");
    const auto died_building_twice = [&](std::uint64_t first) {
        for (const std::uint64_t process : {first, first + 1}) {
            touch(cl::DeviceUseMark::mark_path(root.path(), device, process), "building: in use by process x\n");
            const cl::DeviceUseMark in_use(root.path(), device);
            if (!in_use.skipped().empty()) return in_use.skipped();
        }
        return std::string();
    };
    SECTION("killed twice: the separate build finishes, so the device is used, and the count starts again") {
        const FakeBuildChecker checker(cl::BuildCheck::Outcome::built);
        CHECK(died_building_twice(dead_process).empty());
        CHECK(checker.calls == 1);
        CHECK(cl::device_skip_reason(root.path(), device).empty());
        // One more death while building is a first one again: no check, no skip.
        touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process + 5), "building: in use by process x\n");
        const cl::DeviceUseMark again(root.path(), device);
        CHECK(again.skipped().empty());
        CHECK(checker.calls == 1);
    }
    SECTION("the separate build reports an error of its own: no crash either, the device is used") {
        const FakeBuildChecker checker(cl::BuildCheck::Outcome::failed);
        CHECK(died_building_twice(dead_process).empty());
        CHECK(checker.calls == 1);
    }
    SECTION("the separate build dies too: the compiler crashes, and the device is skipped saying so") {
        const FakeBuildChecker checker(cl::BuildCheck::Outcome::died);
        CHECK_THAT(died_building_twice(dead_process),
                   Catch::Contains("also after its caches were cleared, and so did a build in a separate process; "
                                   "run 'backprop devices --enable "));
        CHECK(checker.calls == 1);
        CHECK_FALSE(cl::device_skip_reason(root.path(), device).empty());
    }
    SECTION("the notes say what the check found") {
        const FakeBuildChecker checker(cl::BuildCheck::Outcome::built);
        touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process), "building: in use by process x\n");
        { const cl::DeviceUseMark first(root.path(), device); }
        touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process + 1), "building: in use by process x\n");
        const cl::DeviceUseMark second(root.path(), device);
        REQUIRE(second.notes().size() == 2);
        CHECK_THAT(second.notes()[1], Catch::Contains("but a build in a separate process then finished, so its "
                                                      "driver's compiler did not crash (was the program killed?): "
                                                      "cpu-one is used"));
    }
}

TEST_CASE("a POCL_CACHE_DIR the user set is the PoCL cache that a dead process's mark clears, PoCL's entries only",
          "[crash-guard]") {
    test::TempDir root("use-mark-user-pocl");
    test::TempDir mine("use-mark-user-pocl-folder");
    const test::ScopedEnvironment pocl("POCL_CACHE_DIR", mine.path().string());
    const device::DeviceDescription device = pocl_device("cpu-one");
    touch(mine.path() / "AB" / "CDEF" / "program.bc");
    touch(mine.path() / "tempfile_x1y2");
    touch(mine.path() / "kcache" / "AB" / "CDEF" / "program.bc");
    touch(mine.path() / "notes.txt", "the user's own file");
    touch(mine.path() / "XY" / "kept.txt", "not PoCL's: its hashes use the letters A to P");
    touch(cl::DeviceUseMark::mark_path(root.path(), device, dead_process), "using: in use by process x\n");
    const cl::DeviceUseMark in_use(root.path(), device);
    REQUIRE(in_use.notes().size() == 1);
    CHECK_THAT(in_use.notes()[0], Catch::Contains("PoCL's cache " + mine.path().string() + " (set by POCL_CACHE_DIR)"));
    CHECK_FALSE(fs::exists(mine.path() / "AB"));
    CHECK_FALSE(fs::exists(mine.path() / "tempfile_x1y2"));
    CHECK_FALSE(fs::exists(mine.path() / "kcache"));
    CHECK(fs::exists(mine.path() / "notes.txt"));
    CHECK(fs::exists(mine.path() / "XY" / "kept.txt"));
}

TEST_CASE("PoCL kernel libraries cut short are removed before PoCL can load them, whole ones stay, with a note",
          "[crash-guard]") {
    const DriverCachesBesideOurs beside;
    test::TempDir root("use-mark-pocl-damage");
    const device::DeviceDescription device = pocl_device("cpu-one");
    const fs::path kernels = root.path() / "pocl" / "AB" / "CDEF";
    write_elf(kernels / "good" / "0-0-0" / "good.so");
    write_elf(kernels / "cut" / "0-0-0" / "cut.so", 100);
    write_elf(kernels / "empty" / "0-0-0" / "empty.so", 0);
    CHECK(cl::is_whole_elf_file(kernels / "good" / "0-0-0" / "good.so"));
    CHECK_FALSE(cl::is_whole_elf_file(kernels / "cut" / "0-0-0" / "cut.so"));

    const cl::DeviceUseMark in_use(root.path(), device);
    CHECK(fs::exists(kernels / "good" / "0-0-0" / "good.so"));
    CHECK_FALSE(fs::exists(kernels / "cut" / "0-0-0" / "cut.so"));
    CHECK_FALSE(fs::exists(kernels / "empty" / "0-0-0" / "empty.so"));
    REQUIRE(in_use.notes().size() == 1);
    CHECK_THAT(in_use.notes()[0], Catch::StartsWith("PoCL's cache " + (root.path() / "pocl").string() +
                                                    " held 2 damaged kernel libraries (") &&
                                      Catch::EndsWith("which would have aborted the program: removed, PoCL builds "
                                                      "them anew"));
}

TEST_CASE("a clear's marker whose process died, or this process's own, holds no builder back, and a clear removes it",
          "[crash-guard]") {
    test::TempDir root("use-mark-clearing");
    const device::DeviceDescription device = pocl_device("cpu-one");
    touch(root.path() / "kernels" / (std::string("clearing-") + std::to_string(dead_process)));
    // Returns at once: a marker of a live process would hold it back for up to 60 s.
    cl::wait_while_cache_is_cleared(root.path());
    const cl::DeviceUseMark in_use(root.path(), device);
    CHECK(fs::exists(in_use.path()));
    // This process's own use mark does not hold back its own clear; the clear's marker goes after.
    const fs::path marker = root.path() / "kernels" / ("clearing-" + std::to_string(cl::current_process_id()));
    {
        const cl::CacheClearing clearing(root.path());
        CHECK(fs::exists(marker));
        cl::wait_while_cache_is_cleared(root.path());  // this process's own clear holds nothing back
    }
    CHECK_FALSE(fs::exists(marker));
    CHECK(cl::live_marks(root.path()).empty());  // this process's marks are not another's
}
