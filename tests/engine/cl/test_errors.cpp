#include <catch2/catch.hpp>

#include "engine/cl/context.h"
#include "engine/cl/error.h"
#include "engine/cl/program.h"
#include "tests/engine/test_device.h"

using namespace bps;

TEST_CASE("OpenCL statuses are named, not numbered") {
    CHECK(cl::status_name(CL_OUT_OF_RESOURCES) == "CL_OUT_OF_RESOURCES");
    CHECK(cl::status_name(-5) == "CL_OUT_OF_RESOURCES");
    CHECK(cl::status_name(CL_BUILD_PROGRAM_FAILURE) == "CL_BUILD_PROGRAM_FAILURE");
    CHECK(cl::status_name(CL_INVALID_KERNEL_NAME) == "CL_INVALID_KERNEL_NAME");
    CHECK(cl::status_name(-1001) == "CL_PLATFORM_NOT_FOUND_KHR");
    CHECK(cl::status_name(-9999) == "unknown OpenCL status -9999");
}

TEST_CASE("a failed check names the call, the status and what was involved") {
    try {
        cl::check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel", "kernel 'axpy'");
        FAIL("check did not throw");
    } catch (const cl::ClError& error) {
        CHECK(error.status() == CL_OUT_OF_RESOURCES);
        CHECK(error.call() == "clEnqueueNDRangeKernel");
        CHECK(std::string(error.what()) ==
              "clEnqueueNDRangeKernel failed with CL_OUT_OF_RESOURCES (-5) for kernel 'axpy'");
    }
    CHECK_NOTHROW(cl::check(CL_SUCCESS, "clFinish"));
}

TEST_CASE("a buffer larger than the device allows names clCreateBuffer and the size") {
    const cl::Context context(test::test_device());
    const std::size_t too_big = static_cast<std::size_t>(test::test_device().max_allocation_bytes) * 2 + 12;
    try {
        cl::Buffer buffer(context, too_big);
        FAIL("a buffer of " << too_big << " bytes was allowed");
    } catch (const cl::ClError& error) {
        CHECK(error.call() == "clCreateBuffer");
        CHECK_THAT(error.what(), Catch::Contains("buffer of " + std::to_string(too_big) + " bytes"));
        CHECK_THAT(error.what(), Catch::Contains(cl::status_name(error.status())));
        CHECK_THAT(error.what(), Catch::StartsWith("clCreateBuffer failed with CL_"));
    }
}

TEST_CASE("a kernel name the program lacks is reported with both names") {
    const cl::Context context(test::test_device());
    const cl::Program program(context, "tiny", "__kernel void present(__global float* x) { x[0] = 1.0f; }");
    try {
        cl::Kernel kernel(program, "absent");
        FAIL("an absent kernel was created");
    } catch (const cl::ClError& error) {
        CHECK(error.status() == CL_INVALID_KERNEL_NAME);
        CHECK_THAT(error.what(), Catch::Contains("kernel 'absent' of program 'tiny'"));
    }
}

TEST_CASE("a kernel that does not compile carries the compiler's build log") {
    const cl::Context context(test::test_device());
    try {
        cl::Program program(context, "broken", "__kernel void broken(__global float* x) { x[0] = undeclared_name; }");
        FAIL("a broken program built");
    } catch (const cl::ClError& error) {
        CHECK(error.status() == CL_BUILD_PROGRAM_FAILURE);
        CHECK(error.call() == "clBuildProgram");
        CHECK_THAT(error.build_log(), Catch::Contains("undeclared_name"));
        CHECK_THAT(error.what(), Catch::Contains("program 'broken'"));
        CHECK_THAT(error.what(), Catch::Contains("build log:"));
    }
}

TEST_CASE("no OpenCL means an explanation with the way to install a driver") {
    const device::NoDeviceError error;
    CHECK_THAT(error.what(), Catch::Contains("No OpenCL platform was found"));
#if defined(__linux__)
    CHECK_THAT(error.what(), Catch::Contains("pocl-opencl-icd"));
#endif
}
