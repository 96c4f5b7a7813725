#include <catch2/catch.hpp>

#include "engine/cl/device.h"
#include "engine/cl/error.h"
#include "tests/support/process.h"

using namespace bps;

namespace {
cl::DeviceInfo fake_device(std::size_t index, const std::string& name, device::DeviceKind kind,
                           std::uint32_t compute_units) {
    cl::DeviceInfo info;
    info.index = index;
    info.name = name;
    info.platform_name = "Test platform";
    info.kind = kind;
    info.compute_units = compute_units;
    return info;
}
}  // namespace

TEST_CASE("the default is a discrete GPU, then integrated, then accelerator, then CPU") {
    std::vector<cl::DeviceInfo> devices = {
        fake_device(0, "Big CPU", device::DeviceKind::Cpu, 64),
        fake_device(1, "Accelerator", device::DeviceKind::Accelerator, 8),
        fake_device(2, "Laptop iGPU", device::DeviceKind::IntegratedGpu, 24),
        fake_device(3, "Discrete GPU", device::DeviceKind::DiscreteGpu, 20),
    };
    CHECK(cl::default_device_index(devices) == 3);
    devices.pop_back();
    CHECK(cl::default_device_index(devices) == 2);
    devices.pop_back();
    CHECK(cl::default_device_index(devices) == 1);
    devices.pop_back();
    CHECK(cl::default_device_index(devices) == 0);
}

TEST_CASE("within a kind the device with the most compute units is the default") {
    const std::vector<cl::DeviceInfo> devices = {
        fake_device(0, "Small GPU", device::DeviceKind::DiscreteGpu, 16),
        fake_device(1, "Large GPU", device::DeviceKind::DiscreteGpu, 132),
        fake_device(2, "Medium GPU", device::DeviceKind::DiscreteGpu, 40),
    };
    CHECK(cl::default_device_index(devices) == 1);
}

TEST_CASE("a device is chosen by index or by a case-insensitive part of its name") {
    const std::vector<cl::DeviceInfo> devices = {
        fake_device(0, "pthread-skylake-avx512", device::DeviceKind::Cpu, 2),
        fake_device(1, "NVIDIA H100 80GB HBM3", device::DeviceKind::DiscreteGpu, 132),
    };
    CHECK(cl::select_device(devices, "") == 1);
    CHECK(cl::select_device(devices, "0") == 0);
    CHECK(cl::select_device(devices, "h100") == 1);
    CHECK(cl::select_device(devices, "SKYLAKE") == 0);
}

TEST_CASE("an unknown device request names the request and lists the devices") {
    const std::vector<cl::DeviceInfo> devices = {fake_device(0, "pthread-skylake", device::DeviceKind::Cpu, 2)};
    CHECK_THROWS_WITH(cl::select_device(devices, "radeon"),
                      Catch::Contains("no OpenCL device matches 'radeon'") && Catch::Contains("0: pthread-skylake"));
    CHECK_THROWS_WITH(cl::select_device(devices, "7"), Catch::Contains("no OpenCL device matches '7'"));
}

TEST_CASE("choosing from no devices says how to install a driver") {
    CHECK_THROWS_AS(cl::select_device({}, ""), device::NoDeviceError);
    CHECK_THROWS_AS(cl::default_device_index({}), device::NoDeviceError);
}

TEST_CASE("the --device flag wins over BACKPROP_DEVICE, which wins over the default") {
    {
        test::ScopedEnvironment env("BACKPROP_DEVICE", "gpu");
        CHECK(device::device_request(std::string("cpu")) == "cpu");
        CHECK(device::device_request(std::nullopt) == "gpu");
    }
    test::unset_environment("BACKPROP_DEVICE");
    CHECK(device::device_request(std::nullopt).empty());
}

TEST_CASE("a failing device's message offers another CPU device, never itself") {
    const std::vector<device::DeviceDescription> devices = {
        fake_device(0, "Discrete GPU", device::DeviceKind::DiscreteGpu, 20),
        fake_device(1, "Laptop iGPU", device::DeviceKind::IntegratedGpu, 24),
        fake_device(2, "Big CPU", device::DeviceKind::Cpu, 64),
    };
    CHECK(device::cpu_device_offer(devices, 0) == "the CPU device 'Big CPU' (device 2)");
    CHECK(device::cpu_device_offer(devices, 1) == "the CPU device 'Big CPU' (device 2)");
    CHECK(device::cpu_device_offer(devices, 2).empty());  // the CPU itself failed: nothing else is a CPU
    CHECK(device::cpu_device_offer({devices[0], devices[1]}, 0).empty());
}

TEST_CASE("a skipped device is never the default, and asking for it says why and how to enable it", "[crash-guard]") {
    std::vector<cl::DeviceInfo> devices = {
        fake_device(0, "Big CPU", device::DeviceKind::Cpu, 64),
        fake_device(1, "Discrete GPU", device::DeviceKind::DiscreteGpu, 20),
    };
    devices[1].skipped = "the program died while building kernels for it; run 'backprop devices --enable 1'";
    CHECK(cl::default_device_index(devices) == 0);
    CHECK(cl::select_device(devices, "") == 0);
    CHECK_THROWS_WITH(cl::select_device(devices, "discrete"),
                      "device 1 (Discrete GPU) is skipped: the program died while building kernels for it; run "
                      "'backprop devices --enable 1'");
    CHECK(cl::find_device(devices, "discrete") == 1);  // to enable it
    devices[0].skipped = "the program died while building kernels for it; run 'backprop devices --enable 0'";
    CHECK_THROWS_WITH(cl::select_device(devices, ""),
                      Catch::StartsWith("every OpenCL device is skipped; device 1 (Discrete GPU) is skipped: "));
}
