// The fault-injection seam: the chosen call fails with the chosen status, every other call runs.
#include <catch2/catch.hpp>
#include <limits>

#include "engine/cl/context.h"
#include "engine/cl/error.h"
#include "engine/cl/fault_injection.h"
#include "engine/cl/program.h"
#include "kernels/embedded_kernels.h"
#include "tests/engine/test_device.h"

using namespace bps;

namespace {
struct Disarmed {
    ~Disarmed() { cl::disarm_fault(); }
};
}  // namespace

TEST_CASE("fault texts name a point, a call count and optionally a status") {
    const std::optional<cl::Fault> enqueue = cl::parse_fault("enqueue:200");
    REQUIRE(enqueue);
    CHECK(enqueue->point == cl::FaultPoint::enqueue);
    CHECK(enqueue->nth == 200);
    CHECK(enqueue->status == CL_OUT_OF_RESOURCES);
    const std::optional<cl::Fault> allocation = cl::parse_fault("allocation:3:CL_MEM_OBJECT_ALLOCATION_FAILURE");
    REQUIRE(allocation);
    CHECK(allocation->point == cl::FaultPoint::allocation);
    CHECK(allocation->nth == 3);
    CHECK(allocation->status == CL_MEM_OBJECT_ALLOCATION_FAILURE);
    CHECK(cl::parse_fault("build:1")->point == cl::FaultPoint::build);
    CHECK(cl::parse_fault("read:7")->point == cl::FaultPoint::read);
    const std::optional<cl::Fault> hang = cl::parse_fault("hang:60");
    REQUIRE(hang);
    CHECK(hang->point == cl::FaultPoint::hang);
    CHECK(hang->nth == 60);
    CHECK(hang->status == cl::hang_status);
    const std::optional<cl::Fault> skip = cl::parse_fault("skip:4");
    REQUIRE(skip);
    CHECK(skip->point == cl::FaultPoint::skip);
    CHECK(skip->nth == 4);
    for (const char* wrong : {"", "enqueue", "enqueue:", "enqueue:0", "enqueue:x", "enqueues:1", "read:1:CL_NOPE",
                              "enqueue:-1", "read:1:", "hang:1:CL_OUT_OF_RESOURCES", "skip:1:CL_OUT_OF_RESOURCES"})
        CHECK_FALSE(cl::parse_fault(wrong));
}

TEST_CASE("an armed fault fails exactly its call with its status, and the device goes on working") {
    const Disarmed disarmed;
    const cl::Context context(test::test_device());
    const cl::Queue queue(context);
    const cl::Program program(context, "elementwise", kernels::embedded_source("elementwise"));
    cl::Kernel fill(program, "fill");
    const cl::Buffer buffer(context, 64 * sizeof(float));
    fill.arg(0, 64).arg(1, 2.5f).arg(2, buffer);

    cl::arm_fault({cl::FaultPoint::enqueue, 3, CL_OUT_OF_RESOURCES});
    fill.run(queue, 64);
    fill.run(queue, 64);
    try {
        fill.run(queue, 64);
        FAIL("the third launch did not fail");
    } catch (const cl::ClError& error) {
        CHECK(error.status() == CL_OUT_OF_RESOURCES);
        CHECK(error.call() == "clEnqueueNDRangeKernel");
        CHECK_THAT(error.what(), Catch::Contains("kernel 'fill'"));
    }
    fill.run(queue, 64);  // only the armed call fails
    CHECK(cl::counted_calls() == 4);
    std::vector<float> values(64, 0.0f);
    buffer.read(queue, values.data(), 64 * sizeof(float));
    CHECK(values == std::vector<float>(64, 2.5f));

    cl::arm_fault({cl::FaultPoint::allocation, 1, CL_MEM_OBJECT_ALLOCATION_FAILURE});
    CHECK_THROWS_WITH(cl::Buffer(context, 1024),
                      Catch::StartsWith("clCreateBuffer failed with CL_MEM_OBJECT_ALLOCATION_FAILURE"));
    cl::arm_fault({cl::FaultPoint::read, 1, CL_OUT_OF_RESOURCES});
    CHECK_THROWS_WITH(buffer.read(queue, values.data(), 64 * sizeof(float)),
                      Catch::StartsWith("clEnqueueReadBuffer failed with CL_OUT_OF_RESOURCES"));
    cl::arm_fault({cl::FaultPoint::build, 1, CL_BUILD_PROGRAM_FAILURE});
    CHECK_THROWS_WITH(cl::Program(context, "elementwise", kernels::embedded_source("elementwise")),
                      Catch::StartsWith("clBuildProgram failed with CL_BUILD_PROGRAM_FAILURE") &&
                          Catch::Contains("program 'elementwise'"));

    cl::disarm_fault();
    CHECK_NOTHROW(cl::Buffer(context, 1024));  // nothing armed: everything works again
}
