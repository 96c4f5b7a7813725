// Pooling against the C++ reference, and the reference's backward against finite differences.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/ops/pool.h"
#include "engine/reference/pool.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using model::PoolGeometry;
using ops::GradWrite;

namespace {
struct Case {
    Shape input;
    PoolGeometry geometry;
};

std::string describe(const Case& c) {
    std::ostringstream text;
    text << c.geometry.size_h << "x" << c.geometry.size_w << " stride " << c.geometry.stride_h << "x"
         << c.geometry.stride_w << " on " << c.input.to_string();
    return text.str();
}

// Overlapping windows, odd sizes that leave a row and column unreached, non-square windows and
// strides, batch 1, and a window the size of the whole plane.
Case generated_case() {
    return GENERATE(Case{{3, 5, 7, 7}, {3, 3, 2, 2}}, Case{{3, 5, 7, 7}, {2, 2, 2, 2}},
                    Case{{1, 2, 6, 9}, {2, 3, 1, 2}}, Case{{1, 1, 5, 5}, {5, 5, 1, 1}},
                    Case{{2, 3, 8, 5}, {3, 1, 3, 1}});
}

// Distinct values (a shuffled ramp, 0.01 apart), so every window's maximum stays the maximum
// under a finite-difference step.
std::vector<double> distinct_values(std::size_t count, std::uint32_t seed) {
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = (static_cast<double>(i) - static_cast<double>(count) / 2) * 0.01;
    std::mt19937 generator(seed);
    for (std::size_t i = count - 1; i > 0; --i) std::swap(values[i], values[generator() % (i + 1)]);
    return values;
}

std::vector<float> plus(std::span<const float> a, std::span<const float> b) {
    std::vector<float> sum(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
    return sum;
}
}  // namespace

TEST_CASE("max pooling forward and backward match the reference", "[pool]") {
    const Case c = generated_case();
    // The backward's GPU form (a gather per input element) and its CPU form (a scatter per plane).
    const ops::WorkSpread spread = GENERATE(ops::WorkSpread::per_element, ops::WorkSpread::per_plane);
    INFO(describe(c) << (spread == ops::WorkSpread::per_plane ? ", per plane" : ", per element"));
    const Shape out = model::pool_output_shape(c.input, c.geometry);
    test::TestTensors t;
    const TensorId x = t.add("x", c.input), y = t.add("y", out), argmax = t.add("argmax", out), dy = t.add("dy", out),
                   dx = t.add("dx", c.input);
    t.allocate();
    const std::vector<float> x_host = test::random_values(c.input.count(), 11, -2.0f, 2.0f);
    const std::vector<float> dy_host = test::random_values(out.count(), 12);
    const std::vector<float> dx_before = test::random_values(c.input.count(), 13);
    t.write(x, x_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);

    ops::Runtime& runtime = test::op_runtime();
    ops::max_pool_forward(runtime, c.geometry, t[x], t[y], t[argmax]);
    std::vector<float> y_ref(out.count()), dx_ref(c.input.count());
    std::vector<int> argmax_ref(out.count());
    ref::max_pool_forward<float>(c.input, c.geometry, x_host, y_ref, argmax_ref);
    test::require_close(t.read(y), y_ref, 0, "y");  // a copy of one input: exact
    CHECK(runtime.read_ints(t[argmax]) == argmax_ref);

    ref::max_pool_backward<float>(c.input, c.geometry, dy_host, argmax_ref, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::max_pool_backward(runtime, c.geometry, t[dy], t[argmax], t[dx], GradWrite::overwrite, spread);
        test::require_close(t.read(dx), dx_ref, 1e-6, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::max_pool_backward(runtime, c.geometry, t[dy], t[argmax], t[dx], GradWrite::accumulate, spread);
        test::require_close(t.read(dx), plus(dx_before, dx_ref), 1e-6, "dx accumulated", test::max_abs(dx_before));
    }
    SECTION("without an input gradient nothing is written") {
        ops::max_pool_backward(runtime, c.geometry, t[dy], t[argmax], Tensor{}, GradWrite::overwrite, spread);
        test::require_close(t.read(dx), dx_before, 0, "dx untouched");
    }
}

TEST_CASE("average pooling forward and backward match the reference", "[pool]") {
    const Case c = generated_case();
    INFO(describe(c));
    const Shape out = model::pool_output_shape(c.input, c.geometry);
    test::TestTensors t;
    const TensorId x = t.add("x", c.input), y = t.add("y", out), dy = t.add("dy", out), dx = t.add("dx", c.input);
    t.allocate();
    const std::vector<float> x_host = test::random_values(c.input.count(), 21, -2.0f, 2.0f);
    const std::vector<float> dy_host = test::random_values(out.count(), 22);
    const std::vector<float> dx_before = test::random_values(c.input.count(), 23);
    t.write(x, x_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);

    ops::Runtime& runtime = test::op_runtime();
    ops::avg_pool_forward(runtime, c.geometry, t[x], t[y]);
    std::vector<float> y_ref(out.count()), dx_ref(c.input.count());
    ref::avg_pool_forward<float>(c.input, c.geometry, x_host, y_ref);
    test::require_close(t.read(y), y_ref, 1e-6, "y");

    ref::avg_pool_backward<float>(c.input, c.geometry, dy_host, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::avg_pool_backward(runtime, c.geometry, t[dy], t[dx], GradWrite::overwrite);
        test::require_close(t.read(dx), dx_ref, 1e-6, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::avg_pool_backward(runtime, c.geometry, t[dy], t[dx], GradWrite::accumulate);
        test::require_close(t.read(dx), plus(dx_before, dx_ref), 1e-6, "dx accumulated", test::max_abs(dx_before));
    }
}

TEST_CASE("global average pooling forward and backward match the reference", "[pool]") {
    const Shape shape = GENERATE(Shape{3, 5, 7, 7}, Shape{1, 1, 1, 1}, Shape{2, 3, 5, 4}, Shape{1, 4, 28, 28});
    INFO(shape.to_string());
    const Shape out{shape.n, shape.c, 1, 1};
    test::TestTensors t;
    const TensorId x = t.add("x", shape), y = t.add("y", out), dy = t.add("dy", out), dx = t.add("dx", shape);
    t.allocate();
    const std::vector<float> x_host = test::random_values(shape.count(), 31, -2.0f, 2.0f);
    const std::vector<float> dy_host = test::random_values(out.count(), 32);
    const std::vector<float> dx_before = test::random_values(shape.count(), 33);
    t.write(x, x_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);

    ops::Runtime& runtime = test::op_runtime();
    ops::global_avg_pool_forward(runtime, t[x], t[y]);
    std::vector<float> y_ref(out.count()), dx_ref(shape.count());
    ref::global_avg_pool_forward<float>(shape, x_host, y_ref);
    // Normwise over means of random signs: the denominator is the largest mean, so 1e-5.
    test::require_close(t.read(y), y_ref, 1e-5, "y");

    ref::global_avg_pool_backward<float>(shape, dy_host, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::global_avg_pool_backward(runtime, t[dy], t[dx], GradWrite::overwrite);
        test::require_close(t.read(dx), dx_ref, 1e-6, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::global_avg_pool_backward(runtime, t[dy], t[dx], GradWrite::accumulate);
        test::require_close(t.read(dx), plus(dx_before, dx_ref), 1e-6, "dx accumulated", test::max_abs(dx_before));
    }
}

TEST_CASE("pooling backward on the reference matches finite differences", "[pool]") {
    const Case c =
        GENERATE(Case{{2, 3, 5, 5}, {3, 3, 2, 2}}, Case{{2, 3, 5, 5}, {2, 2, 2, 2}}, Case{{1, 2, 4, 7}, {2, 3, 1, 2}});
    INFO(describe(c));
    const Shape in = c.input, out = model::pool_output_shape(in, c.geometry);
    const std::vector<double> x = distinct_values(in.count(), 41);
    const std::vector<double> dy = test::to_double(test::random_values(out.count(), 42));
    std::vector<double> y(out.count()), dx(in.count());

    SECTION("max pooling") {
        std::vector<int> argmax(out.count());
        ref::max_pool_forward<double>(in, c.geometry, x, y, argmax);
        ref::max_pool_backward<double>(in, c.geometry, dy, argmax, dx);
        const auto loss = [&](std::span<const double> input) {
            std::vector<double> output(out.count());
            std::vector<int> indices(out.count());
            ref::max_pool_forward<double>(in, c.geometry, input, output, indices);
            return test::weighted_sum(output, dy);
        };
        test::require_close(dx, test::numeric_gradient(loss, x), 1e-7, "dx against finite differences");
    }
    SECTION("average pooling") {
        ref::avg_pool_backward<double>(in, c.geometry, dy, dx);
        const auto loss = [&](std::span<const double> input) {
            std::vector<double> output(out.count());
            ref::avg_pool_forward<double>(in, c.geometry, input, output);
            return test::weighted_sum(output, dy);
        };
        test::require_close(dx, test::numeric_gradient(loss, x), 1e-7, "dx against finite differences");
    }
    SECTION("global average pooling") {
        const Shape pooled{in.n, in.c, 1, 1};
        const std::vector<double> dy_pooled = test::to_double(test::random_values(pooled.count(), 43));
        ref::global_avg_pool_backward<double>(in, dy_pooled, dx);
        const auto loss = [&](std::span<const double> input) {
            std::vector<double> output(pooled.count());
            ref::global_avg_pool_forward<double>(in, input, output);
            return test::weighted_sum(output, dy_pooled);
        };
        test::require_close(dx, test::numeric_gradient(loss, x), 1e-7, "dx against finite differences");
    }
}

TEST_CASE("a pooling window larger than its input is refused with the sizes", "[pool]") {
    REQUIRE_THROWS_WITH(model::pool_output_shape({1, 2, 2, 5}, {3, 3, 1, 1}),
                        "pooling: 3x3 window, stride 1x1 does not fit a 1x2x2x5 input");
    REQUIRE_THROWS_AS(model::pool_output_shape({1, 2, 4, 4}, {2, 2, 0, 1}), std::invalid_argument);
    CHECK(model::pool_output_shape({3, 5, 7, 7}, {2, 2, 2, 2}) == Shape{3, 5, 3, 3});
    CHECK(model::pool_output_shape({3, 5, 7, 7}, {3, 3, 2, 2}) == Shape{3, 5, 3, 3});
    CHECK(model::pool_output_shape({1, 1, 6, 9}, {2, 3, 1, 2}) == Shape{1, 1, 5, 4});
}

TEST_CASE("pooling into an output of the wrong shape is refused with both shapes", "[pool]") {
    test::TestTensors t;
    const TensorId x = t.add("x", {2, 3, 7, 7}), y = t.add("y", {2, 3, 4, 4});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::avg_pool_forward(test::op_runtime(), {}, t[x], t[y]),
                        "average pool forward (2x2 window, stride 2x2 on 2x3x7x7): y is 2x3x4x4, expected 2x3x3x3");
}
