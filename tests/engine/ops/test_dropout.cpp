// Dropout against the C++ reference (bit for bit), its statistics, and the reference's backward
// against finite differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "engine/ops/dropout.h"
#include "engine/reference/dropout.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using ops::GradWrite;

TEST_CASE("the dropout hash gives known values", "[dropout]") {
    // Computed independently (Python) from the murmur3 finaliser, so a change to either copy of
    // the hash, which would change every trained model's masks, fails here.
    CHECK(ref::dropout_random(0, 0, 0) == 0x642F30E0u);
    CHECK(ref::dropout_random(1, 2, 3) == 0xC4A3786Fu);
    CHECK(ref::dropout_random(0xFFFFFFFFu, 7, 1000000) == 0xBCCB7E67u);
}

TEST_CASE("dropout forward and backward match the reference bit for bit", "[dropout]") {
    const float rate = GENERATE(0.25f, 0.5f);
    const Shape shape = GENERATE(Shape{3, 5, 7, 7}, Shape{1, 1, 1, 1}, Shape{4, 6, 1, 1});
    INFO("rate " << rate << " on " << shape.to_string());
    const std::uint32_t seed = 1234, step = 17;
    test::TestTensors t;
    const TensorId x = t.add("x", shape), y = t.add("y", shape), mask = t.add("mask", shape), dy = t.add("dy", shape),
                   dx = t.add("dx", shape);
    t.allocate();
    const std::vector<float> x_host = test::random_values(shape.count(), 51);
    const std::vector<float> dy_host = test::random_values(shape.count(), 52);
    const std::vector<float> dx_before = test::random_values(shape.count(), 53);
    t.write(x, x_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);

    ops::Runtime& runtime = test::op_runtime();
    ops::dropout_forward(runtime, rate, seed, step, t[x], t[y], t[mask]);
    std::vector<float> y_ref(shape.count()), mask_ref(shape.count()), dx_ref(shape.count());
    ref::dropout_forward<float>(rate, seed, step, x_host, y_ref, mask_ref);
    CHECK(t.read(mask) == mask_ref);
    CHECK(t.read(y) == y_ref);

    ref::dropout_backward<float>(dy_host, mask_ref, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::dropout_backward(runtime, t[dy], t[mask], t[dx], GradWrite::overwrite);
        CHECK(t.read(dx) == dx_ref);
    }
    SECTION("adding to the input gradient") {
        ops::dropout_backward(runtime, t[dy], t[mask], t[dx], GradWrite::accumulate);
        std::vector<float> expected(shape.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = dx_before[i] + dx_ref[i];
        test::require_close(t.read(dx), expected, 1e-7, "dx accumulated", test::max_abs(dx_before));
    }
    SECTION("without an input gradient nothing is written") {
        ops::dropout_backward(runtime, t[dy], t[mask], Tensor{}, GradWrite::overwrite);
        CHECK(t.read(dx) == dx_before);
    }
}

TEST_CASE("dropout drops about rate of the elements and scales the rest", "[dropout]") {
    const float rate = GENERATE(0.25f, 0.5f);
    INFO("rate " << rate);
    const Shape shape{8, 16, 16, 16};
    test::TestTensors t;
    const TensorId x = t.add("x", shape), y = t.add("y", shape), mask = t.add("mask", shape);
    t.allocate();
    t.write(x, test::random_values(shape.count(), 61));
    ops::dropout_forward(test::op_runtime(), rate, 99, 0, t[x], t[y], t[mask]);
    const std::vector<float> values = t.read(mask);
    std::size_t dropped = 0;
    for (float m : values) {
        if (m == 0.0f)
            ++dropped;
        else
            REQUIRE(m == 1.0f / (1.0f - rate));
    }
    // 32768 draws: the standard deviation of the fraction is below 0.003, so 0.01 is over 3 sigma.
    CHECK(std::abs(static_cast<double>(dropped) / static_cast<double>(values.size()) - rate) < 0.01);
}

TEST_CASE("dropout with another step or seed gives another mask", "[dropout]") {
    const Shape shape{4, 8, 8, 8};
    test::TestTensors t;
    const TensorId x = t.add("x", shape), y = t.add("y", shape), first = t.add("first", shape),
                   second = t.add("second", shape);
    t.allocate();
    t.write(x, test::random_values(shape.count(), 71));
    ops::Runtime& runtime = test::op_runtime();
    const auto differing = [&](std::uint32_t seed, std::uint32_t step) {
        ops::dropout_forward(runtime, 0.5f, 5, 1, t[x], t[y], t[first]);
        ops::dropout_forward(runtime, 0.5f, seed, step, t[x], t[y], t[second]);
        const std::vector<float> a = t.read(first), b = t.read(second);
        std::size_t count = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i]) ++count;
        return static_cast<double>(count) / static_cast<double>(a.size());
    };
    CHECK(differing(5, 1) == 0);
    // Independent masks at rate 0.5 differ in half of the elements.
    CHECK(std::abs(differing(5, 2) - 0.5) < 0.05);
    CHECK(std::abs(differing(6, 1) - 0.5) < 0.05);
}

TEST_CASE("dropout backward on the reference matches finite differences", "[dropout]") {
    const std::size_t n = 2 * 3 * 5 * 5;
    const std::vector<double> x = test::to_double(test::random_values(n, 81));
    const std::vector<double> dy = test::to_double(test::random_values(n, 82));
    std::vector<double> y(n), mask(n), dx(n);
    ref::dropout_forward<double>(0.25f, 3, 4, x, y, mask);
    ref::dropout_backward<double>(dy, mask, dx);
    const auto loss = [&](std::span<const double> input) {
        std::vector<double> output(n), m(n);
        ref::dropout_forward<double>(0.25f, 3, 4, input, output, m);
        return test::weighted_sum(output, dy);
    };
    test::require_close(dx, test::numeric_gradient(loss, x), 1e-7, "dx against finite differences");
}

TEST_CASE("dropout refuses a rate outside 0 to 1 and tensors of different shapes", "[dropout]") {
    test::TestTensors t;
    const TensorId a = t.add("a", {2, 3, 1, 1}), b = t.add("b", {2, 4, 1, 1});
    t.allocate();
    ops::Runtime& runtime = test::op_runtime();
    REQUIRE_THROWS_WITH(ops::dropout_forward(runtime, 0.5f, 0, 0, t[a], t[b], t[a]),
                        "dropout forward: x and y are 2x3x1x1 and 2x4x1x1");
    REQUIRE_THROWS_AS(ops::dropout_forward(runtime, 1.0f, 0, 0, t[a], t[a], t[a]), std::invalid_argument);
    REQUIRE_THROWS_AS(ops::dropout_forward(runtime, -0.1f, 0, 0, t[a], t[a], t[a]), std::invalid_argument);
    CHECK(model::dropout_threshold(0.0f) == 0);
    CHECK(model::dropout_threshold(0.5f) == 0x80000000u);
}
