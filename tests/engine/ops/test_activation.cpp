// Activations against the C++ reference, and the reference's backward against finite differences.
#include <catch2/catch.hpp>

#include "engine/ops/activation.h"
#include "engine/reference/activation.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using model::Activation;

namespace {
const char* name_of(Activation kind) {
    switch (kind) {
        case Activation::relu:
            return "ReLU";
        case Activation::leaky_relu:
            return "LeakyReLU";
        case Activation::sigmoid:
            return "Sigmoid";
        case Activation::tanh:
            return "Tanh";
    }
    return "?";
}
constexpr float slope = 0.1f;
}  // namespace

TEST_CASE("activations forward and backward match the reference on odd shapes") {
    const Activation kind = GENERATE(Activation::relu, Activation::leaky_relu, Activation::sigmoid, Activation::tanh);
    const Shape shape = GENERATE(Shape{3, 5, 7, 7}, Shape{1, 1, 1, 1}, Shape{64, 10, 1, 1});
    INFO(name_of(kind) << " on " << shape.to_string());

    test::TestTensors t;
    const TensorId x = t.add("x", shape), y = t.add("y", shape), dy = t.add("dy", shape), dx = t.add("dx", shape);
    t.allocate();
    const std::vector<float> x_host = test::random_values(shape.count(), 1, -3.0f, 3.0f);
    const std::vector<float> dy_host = test::random_values(shape.count(), 2);
    const std::vector<float> dx_before = test::random_values(shape.count(), 3);
    t.write(x, x_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);

    ops::Runtime& runtime = test::op_runtime();
    ops::activation_forward(runtime, kind, slope, t[x], t[y]);
    std::vector<float> y_ref(shape.count());
    ref::activation_forward<float>(kind, slope, x_host, y_ref);
    const std::vector<float> y_host = t.read(y);
    test::require_close(y_host, y_ref, 1e-6, "forward");  // exp/tanh: a few ulp

    std::vector<float> dx_ref(shape.count());
    ref::activation_backward<float>(kind, slope, x_host, y_ref, dy_host, dx_ref);
    SECTION("overwriting the input gradient") {
        ops::activation_backward(runtime, kind, slope, t[x], t[y], t[dy], t[dx], ops::GradWrite::overwrite);
        test::require_close(t.read(dx), dx_ref, 1e-6, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::activation_backward(runtime, kind, slope, t[x], t[y], t[dy], t[dx], ops::GradWrite::accumulate);
        std::vector<float> expected(shape.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = dx_before[i] + dx_ref[i];
        test::require_close(t.read(dx), expected, 1e-6, "dx accumulated", test::max_abs(dx_before));
    }
}

TEST_CASE("activation backward on the reference matches finite differences") {
    const Activation kind = GENERATE(Activation::relu, Activation::leaky_relu, Activation::sigmoid, Activation::tanh);
    INFO(name_of(kind));
    const std::size_t n = 2 * 3 * 5 * 5;
    const std::vector<double> x = test::to_double(test::random_values(n, 4, -3.0f, 3.0f));
    const std::vector<double> dy = test::to_double(test::random_values(n, 5));
    std::vector<double> y(n), dx(n);
    ref::activation_forward<double>(kind, slope, x, y);
    ref::activation_backward<double>(kind, slope, x, y, dy, dx);
    const auto loss = [&](std::span<const double> input) {
        std::vector<double> output(n);
        ref::activation_forward<double>(kind, slope, input, output);
        return test::weighted_sum(output, dy);
    };
    test::require_close(dx, test::numeric_gradient(loss, x), 1e-7, "dx against finite differences");
}

TEST_CASE("an activation on tensors of different sizes is refused with both shapes") {
    test::TestTensors t;
    const TensorId a = t.add("a", {2, 3, 1, 1}), b = t.add("b", {2, 4, 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::activation_forward(test::op_runtime(), Activation::relu, 0, t[a], t[b]),
                        "activation forward: 2x3x1x1 and 2x4x1x1 differ in size");
}

TEST_CASE("the gradient of a fused activation, from its output in place, matches the reference backward") {
    const Activation kind = GENERATE(Activation::relu, Activation::leaky_relu, Activation::sigmoid, Activation::tanh);
    INFO(name_of(kind));
    const Shape shape{3, 5, 7, 7};
    test::TestTensors t;
    const TensorId y = t.add("y", shape), dy = t.add("dy", shape);
    t.allocate();
    const std::vector<float> x_host = test::random_values(shape.count(), 6, -3.0f, 3.0f);
    const std::vector<float> dy_host = test::random_values(shape.count(), 7);
    std::vector<float> y_host(shape.count()), dx_ref(shape.count());
    ref::activation_forward<float>(kind, slope, x_host, y_host);
    ref::activation_backward<float>(kind, slope, x_host, y_host, dy_host, dx_ref);
    t.write(y, y_host);
    t.write(dy, dy_host);
    ops::activation_gradient_from_output(test::op_runtime(), {kind, slope}, t[y], t[dy]);
    test::require_close(t.read(dy), dx_ref, 1e-6, "dy * f'(x), from y");
}

TEST_CASE("an activation whose output does not determine its derivative is not fused, and refused by the layers") {
    CHECK(ops::derivative_from_output(Activation::relu, 0.0f));
    CHECK(ops::derivative_from_output(Activation::leaky_relu, 0.0f));
    CHECK(ops::derivative_from_output(Activation::leaky_relu, 0.3f));
    CHECK(ops::derivative_from_output(Activation::sigmoid, 0.0f));
    CHECK(ops::derivative_from_output(Activation::tanh, 0.0f));
    // A negative slope makes y > 0 for x < 0 too.
    CHECK_FALSE(ops::derivative_from_output(Activation::leaky_relu, -0.5f));

    const Shape shape{2, 3, 1, 1};
    test::TestTensors t;
    const TensorId y = t.add("y", shape), dy = t.add("dy", shape), other = t.add("other", Shape{2, 4, 1, 1});
    t.allocate();
    CHECK_THROWS_WITH(
        ops::activation_gradient_from_output(test::op_runtime(), {Activation::leaky_relu, -0.5f}, t[y], t[dy]),
        Catch::Contains("LeakyReLU with the negative slope -0.5") && Catch::Contains("cannot be fused"));
    CHECK_THROWS_WITH(
        ops::activation_gradient_from_output(test::op_runtime(), {Activation::relu, 0.0f}, t[other], t[dy]),
        Catch::Contains("2x4x1x1") && Catch::Contains("differ in size"));
}
