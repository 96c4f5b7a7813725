// A device is written as JSON in one place (engine/device/device_json.h): what `backprop devices
// --json` prints and what the comparison history keeps. Every field comes back as it went, and a
// history written before every field was kept still reads, with the rest at their defaults.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/device/device_json.h"

using namespace bps;

namespace {

device::DeviceDescription laptop_gpu() {
    device::DeviceDescription gpu;
    gpu.index = 2;
    gpu.platform_name = "Intel(R) OpenCL Graphics";
    gpu.platform_version = "OpenCL 3.0 ";
    gpu.name = "Intel(R) Iris(R) Xe Graphics";
    gpu.vendor = "Intel(R) Corporation";
    gpu.kind = device::DeviceKind::IntegratedGpu;
    gpu.compute_units = 96;
    gpu.clock_mhz = 1300;
    gpu.global_memory_bytes = 13ull << 30;
    gpu.max_allocation_bytes = 4ull << 30;
    gpu.local_memory_bytes = 64ull << 10;
    gpu.max_work_group_size = 512;
    gpu.opencl_c_version = "OpenCL C 1.2 ";
    gpu.driver_version = "23.17.26241.33";
    gpu.fp16 = true;
    gpu.fp64 = false;
    gpu.skipped = "its driver crashed while building kernels twice; `backprop devices --enable 2` uses it again";
    gpu.self_test = device::SelfTestState::wrong_results;
    gpu.self_test_summary = "SGEMM 67x45x129 (CLBlast): 0.5 (float rounding allows 0.0001)";
    gpu.tuning_summary = "convolution tiles 8x4, step 16: 1.12x the default (4 of 4 variants timed in 1.4 s)";
    return gpu;
}

}  // namespace

TEST_CASE("a device written as JSON reads back with every field", "[device][json]") {
    const device::DeviceDescription gpu = laptop_gpu();
    const nlohmann::json written = device::device_json(gpu);
    CHECK(written.at("kind") == "integrated GPU");
    CHECK(written.at("self_test") == "wrong results");
    CHECK(written.at("clock_mhz") == 1300);
    CHECK(written.size() == 20);
    const device::DeviceDescription back = device::device_from_json(nlohmann::json::parse(written.dump()));
    CHECK(back.index == gpu.index);
    CHECK(back.platform_name == gpu.platform_name);
    CHECK(back.platform_version == gpu.platform_version);
    CHECK(back.name == gpu.name);
    CHECK(back.vendor == gpu.vendor);
    CHECK(back.kind == gpu.kind);
    CHECK(back.compute_units == gpu.compute_units);
    CHECK(back.clock_mhz == gpu.clock_mhz);
    CHECK(back.global_memory_bytes == gpu.global_memory_bytes);
    CHECK(back.max_allocation_bytes == gpu.max_allocation_bytes);
    CHECK(back.local_memory_bytes == gpu.local_memory_bytes);
    CHECK(back.max_work_group_size == gpu.max_work_group_size);
    CHECK(back.opencl_c_version == gpu.opencl_c_version);
    CHECK(back.driver_version == gpu.driver_version);
    CHECK(back.fp16 == gpu.fp16);
    CHECK(back.fp64 == gpu.fp64);
    CHECK(back.skipped == gpu.skipped);
    CHECK(back.self_test == gpu.self_test);
    CHECK(back.self_test_summary == gpu.self_test_summary);
    CHECK(back.tuning_summary == gpu.tuning_summary);

    device::DeviceDescription usable = gpu;
    usable.skipped.clear();
    CHECK(device::device_json(usable).at("skipped").is_null());
    CHECK(device::device_from_json(device::device_json(usable)).skipped.empty());
}

TEST_CASE("a device kept by an older comparison history reads with the rest at their defaults", "[device][json]") {
    // The fields the history kept before one function wrote every device.
    const nlohmann::json older = nlohmann::json::parse(R"({"index": 0, "name": "pthread-cpu",
        "platform": "Portable Computing Language", "platform_version": "OpenCL 3.0 PoCL 3.1",
        "driver_version": "3.1+debian", "kind": "CPU", "compute_units": 2, "global_memory_bytes": 1024,
        "self_test": "passed", "self_test_summary": "passed 3 checks"})");
    const device::DeviceDescription cpu = device::device_from_json(older);
    CHECK(cpu.name == "pthread-cpu");
    CHECK(cpu.kind == device::DeviceKind::Cpu);
    CHECK(cpu.self_test == device::SelfTestState::passed);
    CHECK(cpu.vendor.empty());
    CHECK(cpu.clock_mhz == 0);
    CHECK(cpu.opencl_c_version.empty());
    CHECK_FALSE(cpu.fp64);

    nlohmann::json missing = older;
    missing.erase("driver_version");
    CHECK_THROWS_AS(device::device_from_json(missing), nlohmann::json::exception);
}
