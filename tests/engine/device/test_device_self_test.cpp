// The device self-test: it passes on a working device, finds a kernel that does nothing, is
// stored beside the kernel cache per device and driver, and keeps a wrong device from being the
// default.
#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>

#include "engine/bench/self_test.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/fault_injection.h"
#include "engine/device/self_test.h"
#include "engine/device/self_test_record.h"
#include "engine/ops/gemm.h"
#include "engine/session/device_check.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/test_device.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;

namespace {
device::DeviceDescription described(std::size_t index, const std::string& name, device::DeviceKind kind,
                                    device::SelfTestState state) {
    device::DeviceDescription device;
    device.index = index;
    device.name = name;
    device.kind = kind;
    device.compute_units = 8;
    device.driver_version = "1.0";
    device.self_test = state;
    device.self_test_summary = state == device::SelfTestState::wrong_results
                                   ? "training step: loss, relative difference: 0.5 (float rounding allows 0.0001)"
                                   : "passed 4 checks in 0.5 s";
    return device;
}

device::SelfTestResult wrong_result() {
    device::SelfTestResult result;
    result.checks = {{"SGEMM 67x45x129 (CLBlast), error relative to the sum of |products|", 2e-8, 1e-4},
                     {"training step: loss, relative difference", 0.37, 1e-4}};
    result.date = "2026-11-25 20:00 UTC";
    return result;
}
}  // namespace

TEST_CASE("the self-test passes on the test device and is stored for discovery to read", "[self-test]") {
    test::TempDir root("self-test");
    test::ScopedEnvironment cache("BACKPROP_CACHE_DIR", root.path().string());
    const device::SelfTestResult result = device::check_device(test::test_device());
    INFO(result.summary());
    REQUIRE(result.error.empty());
    REQUIRE(result.checks.size() == 4);
    for (const device::SelfTestCheck& check : result.checks) {
        CHECK(check.error <= check.tolerance);
        CHECK(check.tolerance <= 1e-3);  // float32 rounding only; a wrong kernel is off by far more
    }
    CHECK(result.correct());
    CHECK(result.launch_us > 0);
    CHECK(result.launch_finish_us > 0);
    CHECK_THAT(result.summary(), Catch::Matchers::StartsWith("passed 4 checks in "));

    CHECK(std::filesystem::exists(device::self_test_record_path(root.path(), test::test_device())));
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& again = devices.at(test::test_device().index);
    CHECK(again.self_test == device::SelfTestState::passed);
    CHECK(again.self_test_summary == result.summary());
}

// The self-test's SGEMM is one own kernel launch on a CPU; elsewhere CLBlast enqueues it, past
// the engine's fault injection.
std::uint64_t sgemm_launches() {
    return std::string(ops::gemm_implementation(test::op_runtime())) == "CLBlast" ? 0 : 1;
}

TEST_CASE("a kernel launch that silently does nothing is found as wrong results", "[self-test]") {
    // The first of the engine's own launches after the SGEMM is the small network's first forward
    // kernel: dropped, the probabilities are those of stale memory.
    cl::arm_fault({cl::FaultPoint::skip, 1 + sgemm_launches(), cl::skip_status});
    const device::SelfTestResult result = device::run_self_test(test::op_runtime());
    cl::disarm_fault();
    INFO(result.summary());
    CHECK_FALSE(result.correct());
    CHECK(result.checks.at(0).passed());  // the SGEMM ran
    CHECK_FALSE(result.checks.at(1).passed());
    CHECK_THAT(result.summary(), Catch::Matchers::Contains(
                                     "training step: class probabilities of the forward pass, largest difference: ") &&
                                     Catch::Matchers::Contains("(float rounding allows 0.0001)"));
    // The device is fine again once the fault is gone.
    CHECK(device::run_self_test(test::op_runtime()).correct());
}

TEST_CASE("a dropped SGEMM launch is found, not passed on what the memory held before", "[self-test]") {
    if (sgemm_launches() == 0)
        SUCCEED("CLBlast's launches are not the engine's to drop");
    else {
        // A passing run first, so C's memory may well hold the right values from before.
        REQUIRE(device::run_self_test(test::op_runtime()).correct());
        cl::arm_fault({cl::FaultPoint::skip, 1, cl::skip_status});
        const device::SelfTestResult result = device::run_self_test(test::op_runtime());
        cl::disarm_fault();
        INFO(result.summary());
        CHECK_FALSE(result.correct());
        CHECK_FALSE(result.checks.at(0).passed());
        CHECK_THAT(result.summary(), Catch::Matchers::Contains("SGEMM 67x45x129 (own CPU kernels)"));
        CHECK(result.checks.at(1).passed());
    }
}

TEST_CASE("a stored wrong result marks the device, per driver, and a damaged record is tested again", "[self-test]") {
    test::TempDir root("self-test-record");
    device::DeviceDescription device =
        described(0, "Test GPU", device::DeviceKind::DiscreteGpu, device::SelfTestState::not_run);
    REQUIRE(device::store_self_test(root.path(), device, wrong_result()));
    device::fill_self_test_state(root.path(), device);
    CHECK(device.self_test == device::SelfTestState::wrong_results);
    CHECK(device.self_test_summary == "training step: loss, relative difference: 0.37 (float rounding allows 0.0001)");

    device::DeviceDescription updated = device;  // a driver update means a new test
    updated.driver_version = "1.1";
    device::fill_self_test_state(root.path(), updated);
    CHECK(updated.self_test == device::SelfTestState::not_run);

    std::ofstream(device::self_test_record_path(root.path(), device)) << "{\"format\": \"backprop-studio-self";
    device::fill_self_test_state(root.path(), device);
    CHECK(device.self_test == device::SelfTestState::not_run);
    CHECK(device.self_test_summary.empty());

    device::SelfTestResult unfinished = wrong_result();  // a test that could not finish says nothing
    unfinished.error = "clBuildProgram failed";
    REQUIRE(device::store_self_test(root.path(), device, unfinished));
    device::fill_self_test_state(root.path(), device);
    CHECK(device.self_test == device::SelfTestState::not_run);
}

TEST_CASE("a device with wrong results is never the default, but can be asked for by name", "[self-test]") {
    using device::DeviceKind;
    using device::SelfTestState;
    std::vector<device::DeviceDescription> devices = {
        described(0, "Broken GPU", device::DeviceKind::DiscreteGpu, SelfTestState::wrong_results),
        described(1, "Laptop CPU", device::DeviceKind::Cpu, SelfTestState::passed),
    };
    CHECK(device::default_device_index(devices) == 1);
    CHECK(device::select_device(devices, "") == 1);
    CHECK(device::select_device(devices, "broken") == 0);
    CHECK(device::wrong_results_warning(devices[1]).empty());
    CHECK(device::wrong_results_warning(devices[0]) ==
          "device 0 (Broken GPU, driver 1.0) computed wrong results in its self-test: training step: loss, relative "
          "difference: 0.5 (float rounding allows 0.0001). Training on it gives wrong weights: choose another "
          "device, or update its driver and run 'backprop devices --check' again");
    devices.pop_back();
    CHECK_THROWS_WITH(device::select_device(devices, ""),
                      Catch::Matchers::StartsWith("no OpenCL device is left to choose by default: device 0 (Broken "
                                                  "GPU, driver 1.0) computed wrong results") &&
                          Catch::Matchers::EndsWith("(to train on it anyway, choose it by its index or name)"));
    CHECK(device::select_device(devices, "0") == 0);
}
