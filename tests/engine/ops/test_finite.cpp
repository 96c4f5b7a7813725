// Counting NaN and infinite values on the device against engine/reference/finite.h: random values
// with NaN, +inf and -inf placed at random positions, at sizes below, at and above the op's
// number of work-items, in tensors that do not start at the buffer's beginning.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "engine/ops/finite.h"
#include "engine/reference/finite.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

namespace {
// Random finite values, then `bad` of them (perhaps fewer: positions may repeat) replaced by NaN,
// +inf or -inf at random positions.
std::vector<float> values_with_non_finite(std::size_t count, std::size_t bad, std::uint32_t seed) {
    std::vector<float> values = test::random_values(count, seed, -3.0f, 3.0f);
    std::mt19937 generator(seed + 1);
    std::uniform_int_distribution<std::size_t> position(0, count - 1);
    const float replacements[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity()};
    for (std::size_t i = 0; i < bad; ++i) values[position(generator)] = replacements[generator() % 3];
    return values;
}
}  // namespace

TEST_CASE("the non-finite count matches the reference on random values", "[finite]") {
    const int count = GENERATE(1, 7, 1000, 16384, 70001);
    const std::size_t bad = GENERATE(0u, 1u, 5u, 300u);
    const std::vector<float> values =
        values_with_non_finite(static_cast<std::size_t>(count), bad, static_cast<std::uint32_t>(count * 31 + bad));
    const std::size_t expected = ref::count_non_finite(std::span<const float>(values));
    INFO(count << " values, " << expected << " of them not finite");
    if (bad > 0 && count > 1000) REQUIRE(expected > 0);  // the check must see something to count

    test::TestTensors t;
    const TensorId padding = t.add("padding", {1, 3, 1, 1});  // so that the values start at an offset
    const TensorId x = t.add("x", {1, count, 1, 1});
    const TensorId counter = t.add("counter", {1, 2, 1, 1});
    t.allocate();
    t.write(padding, std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 1.0f, 2.0f});
    t.write(x, values);
    ops::Runtime& runtime = test::op_runtime();
    runtime.write_ints(t[counter], std::vector<int>{0, 0});
    const Tensor second{t[counter].buffer, t[counter].offset + 1, Shape{1, 1, 1, 1}};
    ops::count_non_finite(runtime, t[x], second);
    CHECK(runtime.read_ints(t[counter]) == std::vector<int>{0, static_cast<int>(expected)});

    SECTION("a second tensor adds to the count") {
        ops::count_non_finite(runtime, t[padding], second);
        CHECK(runtime.read_ints(t[counter]) == std::vector<int>{0, static_cast<int>(expected) + 1});
    }
}

TEST_CASE("every value not finite is counted", "[finite]") {
    const std::vector<float> all(40000, std::numeric_limits<float>::infinity());
    test::TestTensors t;
    const TensorId x = t.add("x", {1, 40000, 1, 1}), counter = t.add("counter", {1, 1, 1, 1});
    t.allocate();
    t.write(x, all);
    ops::Runtime& runtime = test::op_runtime();
    runtime.write_ints(t[counter], std::vector<int>{0});
    ops::count_non_finite(runtime, t[x], t[counter]);
    CHECK(runtime.read_ints(t[counter]) == std::vector<int>{40000});
}

TEST_CASE("a non-finite counter of the wrong size is refused", "[finite]") {
    test::TestTensors t;
    const TensorId x = t.add("x", {1, 4, 1, 1}), counter = t.add("counter", {1, 2, 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::count_non_finite(test::op_runtime(), t[x], t[counter]),
                        "count non-finite: the count must be one value, not 1x2x1x1");
}
