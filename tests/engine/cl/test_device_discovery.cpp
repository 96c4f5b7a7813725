#include <catch2/catch.hpp>

#include "engine/cl/device.h"

using namespace bps;

TEST_CASE("discovery finds a device with plausible properties") {
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    REQUIRE_FALSE(devices.empty());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const cl::DeviceInfo& device = devices[i];
        INFO("device " << i << ": " << device.name);
        CHECK(device.index == i);
        CHECK(device.platform != nullptr);
        CHECK(device.id != nullptr);
        CHECK_FALSE(device.name.empty());
        CHECK_FALSE(device.platform_name.empty());
        CHECK_THAT(device.platform_version, Catch::StartsWith("OpenCL "));
        CHECK_THAT(device.opencl_c_version, Catch::StartsWith("OpenCL C "));
        CHECK_FALSE(device.driver_version.empty());
        CHECK(device.compute_units >= 1);
        CHECK(device.global_memory_bytes >= (64u << 20));
        CHECK(device.max_allocation_bytes >= device.global_memory_bytes / 8);  // OpenCL's guaranteed minimum is 1/4
        CHECK(device.max_allocation_bytes <= device.global_memory_bytes);
        CHECK(device.local_memory_bytes >= 16u * 1024);  // OpenCL 1.2 minimum: 32 KiB, 16 for some CPUs
        CHECK(device.max_work_group_size >= 1);
    }
}

TEST_CASE("PoCL's CPU device is classified as a CPU") {
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    bool found = false;
    for (const cl::DeviceInfo& device : devices) {
        if (device.platform_name != "Portable Computing Language") continue;
        found = true;
        CHECK(device.kind == device::DeviceKind::Cpu);
        CHECK(device::kind_name(device.kind) == "CPU");
    }
    if (!found) WARN("PoCL is not installed here; nothing to check");
}
