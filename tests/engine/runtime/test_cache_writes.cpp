// Which programs a runtime stores in the kernel cache: not PoCL's on the way to a first batch, since
// asking PoCL for a binary compiles every kernel of the program (ops::CacheWrites).
#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "engine/cl/fault_injection.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/ops/finite.h"
#include "engine/ops/runtime.h"
#include "tests/engine/test_device.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using bps::test::TempDir;

namespace {

// Counts program builds from source (the fault point that never fires on them) while alive.
struct BuildCounter {
    BuildCounter() { cl::arm_fault({cl::FaultPoint::build, std::numeric_limits<std::uint64_t>::max()}); }
    ~BuildCounter() { cl::disarm_fault(); }
    std::uint64_t builds() const { return cl::counted_calls(); }
};

// Whether a runtime's programs launch: count_non_finite finds the one NaN of four values.
int non_finite_found(ops::Runtime& runtime) {
    const cl::Buffer values_buffer(runtime.context(), 4 * sizeof(float));
    const cl::Buffer count_buffer(runtime.context(), sizeof(int));
    const Tensor values{values_buffer.get(), 0, Shape{1, 4, 1, 1}};
    const Tensor count{count_buffer.get(), 0, Shape{1, 1, 1, 1}};
    runtime.write(values, std::vector<float>{1.5f, std::numeric_limits<float>::quiet_NaN(), -2.0f, 3.0f});
    runtime.write_ints(count, std::vector<int>{0});
    ops::count_non_finite(runtime, values, count);
    return runtime.read_ints(count).front();
}

}  // namespace

TEST_CASE("on PoCL a runtime keeps PoCL's binaries out of the kernel cache unless it builds ahead of need",
          "[runtime][programs]") {
    // One small program (finite.cl), built on its first launch: asking PoCL for the binary of
    // every program would take seconds.
    const cl::DeviceInfo& device = test::test_device();
    TempDir folder("cache-writes");
    cl::KernelCache cache(folder.path());
    {
        ops::Runtime on_the_way(device, &cache);
        CHECK(non_finite_found(on_the_way) == 1);
    }
    // Other drivers hand their binaries over at no cost, and they are stored.
    CHECK(cache.info().entries == (device::is_pocl(device) ? 0U : 1U));
    {
        ops::Runtime ahead_of_need(device, &cache, ops::CacheWrites::all);
        CHECK(non_finite_found(ahead_of_need) == 1);
    }
    CHECK(cache.info().entries == 1);

    // A runtime that stores nothing still uses what is stored: nothing is built from source.
    BuildCounter counter;
    ops::Runtime next(device, &cache);
    CHECK(non_finite_found(next) == 1);
    CHECK(counter.builds() == 0);
}
