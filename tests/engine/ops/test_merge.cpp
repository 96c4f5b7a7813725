// Add and Concatenate against the C++ reference, and the reference's backward against finite
// differences.
#include <catch2/catch.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ops/merge.h"
#include "engine/reference/merge.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

namespace {
std::vector<std::span<const float>> spans_of(const std::vector<std::vector<float>>& values) {
    return {values.begin(), values.end()};
}

// "x2": built with append, since GCC 12 warns (-Wrestrict, falsely) on literal + std::string.
std::string numbered(std::string name, std::size_t i) {
    return name.append(std::to_string(i));
}
}  // namespace

TEST_CASE("Add of two and three inputs matches the reference", "[merge]") {
    const int inputs = GENERATE(2, 3);
    const Shape shape = GENERATE(Shape{3, 5, 5, 5}, Shape{1, 10, 1, 1});
    INFO(inputs << " inputs of " << shape.to_string());
    test::TestTensors t;
    std::vector<TensorId> ids;
    std::vector<std::vector<float>> values;
    for (int i = 0; i < inputs; ++i) {
        ids.push_back(t.add(numbered("x", static_cast<std::size_t>(i)), shape));
        values.push_back(test::random_values(shape.count(), 40 + static_cast<std::uint32_t>(i)));
    }
    const TensorId y = t.add("y", shape);
    t.allocate();
    std::vector<Tensor> tensors;
    for (int i = 0; i < inputs; ++i) {
        t.write(ids[i], values[i]);
        tensors.push_back(t[ids[i]]);
    }
    std::vector<float> expected(shape.count());
    ref::add_forward<float>(spans_of(values), expected);

    SECTION("into its own output") {
        ops::add_forward(test::op_runtime(), tensors, t[y]);
        test::require_close(t.read(y), expected, 1e-6, "y");
    }
    SECTION("in place, over its last input") {
        ops::add_forward(test::op_runtime(), tensors, tensors.back());
        test::require_close(t.read(ids.back()), expected, 1e-6, "y in place");
    }
}

TEST_CASE("the gradient of Add passes unchanged, overwriting or accumulating", "[merge]") {
    const Shape shape{3, 5, 5, 5};
    test::TestTensors t;
    const TensorId dy = t.add("dy", shape), dx = t.add("dx", shape);
    t.allocate();
    const std::vector<float> dy_host = test::random_values(shape.count(), 50);
    const std::vector<float> dx_before = test::random_values(shape.count(), 51);
    t.write(dy, dy_host);
    t.write(dx, dx_before);
    std::vector<float> dx_ref(shape.count());
    ref::add_backward<float>(dy_host, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::pass_gradient(test::op_runtime(), t[dy], t[dx], ops::GradWrite::overwrite);
        CHECK(t.read(dx) == dx_ref);  // a copy
    }
    SECTION("adding to the input gradient") {
        ops::pass_gradient(test::op_runtime(), t[dy], t[dx], ops::GradWrite::accumulate);
        std::vector<float> expected(shape.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = dx_before[i] + dx_ref[i];
        test::require_close(t.read(dx), expected, 1e-6, "dx accumulated", test::max_abs(dx_before));
    }
    SECTION("nothing happens without an input gradient") {
        ops::pass_gradient(test::op_runtime(), t[dy], Tensor{}, ops::GradWrite::overwrite);
        CHECK(t.read(dx) == dx_before);
    }
}

TEST_CASE("Add backward on the reference matches finite differences", "[merge]") {
    const std::size_t n = 2 * 3 * 5 * 5;
    std::vector<std::vector<double>> x{test::to_double(test::random_values(n, 52)),
                                       test::to_double(test::random_values(n, 53))};
    const std::vector<double> dy = test::to_double(test::random_values(n, 54));
    std::vector<double> dx(n);
    ref::add_backward<double>(dy, dx);
    for (std::size_t part = 0; part < x.size(); ++part) {
        const auto loss = [&](std::span<const double> input) {
            std::vector<std::span<const double>> inputs{x[0], x[1]};
            inputs[part] = input;
            std::vector<double> y(n);
            ref::add_forward<double>(inputs, y);
            return test::weighted_sum(y, dy);
        };
        test::require_close(dx, test::numeric_gradient(loss, x[part]), 1e-7, "dx against finite differences");
    }
}

TEST_CASE("Concatenate of 2, 3 and 1 channels and its backward match the reference", "[merge]") {
    const int n = GENERATE(1, 3);
    const std::vector<Shape> shapes{{n, 2, 5, 5}, {n, 3, 5, 5}, {n, 1, 5, 5}};
    const Shape y_shape{n, 6, 5, 5};
    INFO(n << " samples");
    test::TestTensors t;
    std::vector<TensorId> ids, grads;
    std::vector<std::vector<float>> values, before;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        ids.push_back(t.add(numbered("x", i), shapes[i]));
        grads.push_back(t.add(numbered("dx", i), shapes[i]));
        values.push_back(test::random_values(shapes[i].count(), 60 + static_cast<std::uint32_t>(i)));
        before.push_back(test::random_values(shapes[i].count(), 70 + static_cast<std::uint32_t>(i)));
    }
    const TensorId y = t.add("y", y_shape), dy = t.add("dy", y_shape);
    t.allocate();
    std::vector<Tensor> tensors;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        t.write(ids[i], values[i]);
        t.write(grads[i], before[i]);
        tensors.push_back(t[ids[i]]);
    }
    const std::vector<float> dy_host = test::random_values(y_shape.count(), 80);
    t.write(dy, dy_host);

    ops::Runtime& runtime = test::op_runtime();
    ops::concat_forward(runtime, tensors, t[y]);
    std::vector<float> expected(y_shape.count());
    ref::concat_forward<float>(spans_of(values), shapes, expected);
    CHECK(t.read(y) == expected);  // a copy

    const ops::GradWrite write = GENERATE(ops::GradWrite::overwrite, ops::GradWrite::accumulate);
    const bool accumulate = write == ops::GradWrite::accumulate;
    int offset = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        INFO("part " << i << (accumulate ? ", accumulated" : ", overwritten"));
        ops::concat_backward(runtime, t[dy], offset, t[grads[i]], write);
        std::vector<float> dx_ref(shapes[i].count());
        ref::concat_backward<float>(dy_host, y_shape, offset, shapes[i], dx_ref);
        if (accumulate)
            for (std::size_t j = 0; j < dx_ref.size(); ++j) dx_ref[j] += before[i][j];
        test::require_close(t.read(grads[i]), dx_ref, accumulate ? 1e-6 : 0.0, "dx",
                            accumulate ? test::max_abs(before[i]) : 0.0);
        offset += shapes[i].c;
    }
}

TEST_CASE("Concatenate backward on the reference matches finite differences", "[merge]") {
    const std::vector<Shape> shapes{{3, 2, 5, 5}, {3, 3, 5, 5}, {3, 1, 5, 5}};
    const Shape y_shape{3, 6, 5, 5};
    std::vector<std::vector<double>> x;
    for (std::size_t i = 0; i < shapes.size(); ++i)
        x.push_back(test::to_double(test::random_values(shapes[i].count(), 90 + static_cast<std::uint32_t>(i))));
    const std::vector<double> dy = test::to_double(test::random_values(y_shape.count(), 95));
    int offset = 0;
    for (std::size_t part = 0; part < shapes.size(); ++part) {
        INFO("part " << part);
        std::vector<double> dx(shapes[part].count());
        ref::concat_backward<double>(dy, y_shape, offset, shapes[part], dx);
        const auto loss = [&](std::span<const double> input) {
            std::vector<std::span<const double>> inputs{x[0], x[1], x[2]};
            inputs[part] = input;
            std::vector<double> y(y_shape.count());
            ref::concat_forward<double>(inputs, shapes, y);
            return test::weighted_sum(y, dy);
        };
        test::require_close(dx, test::numeric_gradient(loss, x[part]), 1e-7, "dx against finite differences");
        offset += shapes[part].c;
    }
}

TEST_CASE("merges of mismatched shapes are refused with the shapes", "[merge]") {
    test::TestTensors t;
    const TensorId a = t.add("a", {3, 2, 5, 5}), b = t.add("b", {3, 3, 5, 5}), y = t.add("y", {3, 6, 5, 5});
    t.allocate();
    const std::vector<Tensor> inputs{t[a], t[b]};
    ops::Runtime& runtime = test::op_runtime();
    REQUIRE_THROWS_WITH(ops::add_forward(runtime, inputs, t[a]),
                        "Add forward: inputs 3x2x5x5, 3x3x5x5 and output 3x2x5x5 must all have the same shape");
    REQUIRE_THROWS_WITH(ops::concat_forward(runtime, inputs, t[y]),
                        "Concatenate forward: inputs 3x2x5x5, 3x3x5x5 do not concatenate along channels into 3x6x5x5");
    REQUIRE_THROWS_WITH(ops::concat_backward(runtime, t[y], 4, t[b], ops::GradWrite::overwrite),
                        "Concatenate backward: input gradient 3x3x5x5 at channel 4 is not part of 3x6x5x5");
}
