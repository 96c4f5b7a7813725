// Which of kernels/ programs a device's work builds (ops::programs_for): gemm.cl only where the
// own GEMM kernels run, on CPU devices; a GPU multiplies through CLBlast, and building gemm.cl
// there took 4.8 of the H100's 8.2 s for all programs.
#include <catch2/catch.hpp>
#include <string_view>
#include <vector>

#include "engine/ops/gemm.h"
#include "engine/ops/runtime.h"
#include "kernels/embedded_kernels.h"
#include "tests/engine/test_device.h"

using namespace bps;

namespace {
std::vector<std::string_view> every_program() {
    std::vector<std::string_view> names;
    for (const kernels::EmbeddedKernelSource& source : kernels::embedded_sources()) names.push_back(source.name);
    return names;
}
}  // namespace

TEST_CASE("a CPU device builds every program and a GPU every one but gemm.cl, in kernels/ order", "[runtime]") {
    device::DeviceDescription cpu;
    cpu.kind = device::DeviceKind::Cpu;
    CHECK(ops::programs_for(cpu) == every_program());

    for (const device::DeviceKind gpu : {device::DeviceKind::DiscreteGpu, device::DeviceKind::IntegratedGpu}) {
        device::DeviceDescription description;
        description.kind = gpu;
        CHECK_FALSE(ops::own_gemm_by_default(description));
        std::vector<std::string_view> expected = every_program();
        std::erase(expected, std::string_view("gemm"));
        CHECK(ops::programs_for(description) == expected);
        CHECK(expected.size() == every_program().size() - 1);
    }
}

TEST_CASE("build_programs reports the programs of its device, one by one", "[runtime]") {
    ops::Runtime runtime(test::test_device());
    const std::size_t programs = ops::programs_for(runtime.device()).size();
    std::vector<std::size_t> done;
    runtime.build_programs([&](std::size_t built, std::size_t total) {
        CHECK(total == programs);
        done.push_back(built);
    });
    REQUIRE(done.size() == programs);
    for (std::size_t i = 0; i < programs; ++i) CHECK(done[i] == i + 1);
}
