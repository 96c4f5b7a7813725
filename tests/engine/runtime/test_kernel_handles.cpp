// Kernel handles: every op names its kernels once (ops::KernelId, registered process-wide with a
// dense index), and a runtime creates each cl::Kernel once, on first use, then finds it by index.
// Runtime tests, not op tests: tests/sanitize/oclgrind.sh runs tests/engine/ops/ under Oclgrind,
// and this file provokes a clCreateKernel error on purpose.
#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "engine/cl/context.h"
#include "engine/cl/error.h"
#include "engine/ops/finite.h"
#include "engine/ops/kernel_id.h"
#include "engine/ops/runtime.h"
#include "tests/engine/test_device.h"

using namespace bps;

TEST_CASE("a thousand launches of one op create its kernel once", "[runtime]") {
    // A runtime of its own, so that the count starts at zero whatever ran before.
    ops::Runtime runtime(test::test_device());
    CHECK(runtime.kernels_created() == 0);
    const cl::Buffer values_buffer(runtime.context(), 4 * sizeof(float));
    const cl::Buffer count_buffer(runtime.context(), sizeof(int));
    const Tensor values{values_buffer.get(), 0, Shape{1, 4, 1, 1}};
    const Tensor count{count_buffer.get(), 0, Shape{1, 1, 1, 1}};
    runtime.write(values, std::vector<float>{1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f, 3.0f});
    runtime.write_ints(count, std::vector<int>{0});

    for (int i = 0; i < 1000; ++i) ops::count_non_finite(runtime, values, count);

    CHECK(runtime.kernels_created() == 1);
    CHECK(runtime.launches().kernels == 1000);
    // Each launch added the one NaN it found: all thousand ran, on the one kernel.
    CHECK(runtime.read_ints(count) == std::vector<int>{1000});

    // A KernelId made here for the same pair is the op's kernel, not a second one.
    const ops::KernelId same{"finite", "count_non_finite"};
    runtime.kernel(same);
    CHECK(runtime.kernels_created() == 1);
}

TEST_CASE("two KernelIds naming the same kernel share one index", "[runtime]") {
    const ops::KernelId first{"finite", "count_non_finite"};
    const std::size_t registered = ops::KernelId::registered();
    const ops::KernelId second{"finite", "count_non_finite"};
    CHECK(second.index() == first.index());
    CHECK(ops::KernelId::registered() == registered);  // the second registered nothing new

    // The same kernel name in another program is another kernel.
    const ops::KernelId elsewhere{"elementwise", "count_non_finite"};
    CHECK(elsewhere.index() != first.index());
    CHECK(elsewhere.index() < ops::KernelId::registered());
    CHECK(elsewhere.program() == "elementwise");
    CHECK(elsewhere.kernel() == "count_non_finite");
}

TEST_CASE("a kernel its program lacks fails naming the kernel and the program", "[runtime]") {
    ops::Runtime runtime(test::test_device());
    const ops::KernelId absent{"finite", "no_such_kernel"};
    for (int attempt = 0; attempt < 2; ++attempt) {  // a failed creation leaves no broken handle behind
        try {
            runtime.kernel(absent);
            FAIL("a kernel the program lacks was created");
        } catch (const cl::ClError& error) {
            CHECK(error.status() == CL_INVALID_KERNEL_NAME);
            CHECK_THAT(error.what(), Catch::Contains("kernel 'no_such_kernel' of program 'finite'"));
        }
    }
    CHECK(runtime.kernels_created() == 0);
}
