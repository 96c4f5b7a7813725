#include <catch2/catch.hpp>
#include <fstream>

#include "engine/cl/device_use_mark.h"
#include "engine/cl/kernel_cache.h"
#include "engine/cl/process_identity.h"
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
    touch(root.path() / "pocl" / "AB" / "kernel.so");
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

TEST_CASE("a mark left by a process that died clears that device's cached programs and PoCL's cache, with a note") {
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
                         Catch::Contains("PoCL's cache " + (root.path() / "pocl").string()) &&
                         Catch::Contains("were cleared"));
    CHECK_FALSE(fs::exists(dead_mark));
    CHECK_FALSE(fs::exists(entry));
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

TEST_CASE("a device whose build killed the program twice, also after its caches were cleared, is skipped until enabled",
          "[crash-guard]") {
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
    // A second one, with the caches already cleared, skips the device: the caller builds nothing.
    died_building(dead_process + 1);
    {
        const cl::DeviceUseMark in_use(root.path(), device);
        CHECK_THAT(in_use.skipped(),
                   Catch::Equals("cpu-one is skipped from now on: the program died while building kernels for it "
                                 "(processes " +
                                 std::to_string(dead_process) + ", " + std::to_string(dead_process + 1) +
                                 "), also after its caches were cleared; run 'backprop devices --enable 3' to use it "
                                 "again"));
    }
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
