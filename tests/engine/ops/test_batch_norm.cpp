// Batch normalisation against the C++ reference, and the reference's backward against finite
// differences.
#include <catch2/catch.hpp>
#include <span>
#include <vector>

#include "engine/ops/batch_norm.h"
#include "engine/reference/batch_norm.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using ops::GradWrite;

namespace {
constexpr float momentum = 0.9f;
constexpr float epsilon = 1e-5f;

// The tensors of one batch-norm layer on the device, filled with seeded values: x away from zero
// mean (so the mean matters), positive running variance.
struct Layer {
    Shape shape, channels;
    test::TestTensors t;
    TensorId x, y, gamma, beta, saved_mean, saved_inv_std, running_mean, running_var, dy, dx, dgamma, dbeta;
    std::vector<float> x_host, gamma_host, beta_host, running_mean_host, running_var_host, dy_host, dx_before;

    explicit Layer(const Shape& s) : shape(s), channels{1, s.c, 1, 1} {
        x = t.add("x", shape);
        y = t.add("y", shape);
        dy = t.add("dy", shape);
        dx = t.add("dx", shape);
        gamma = t.add("gamma", channels);
        beta = t.add("beta", channels);
        saved_mean = t.add("saved_mean", channels);
        saved_inv_std = t.add("saved_inv_std", channels);
        running_mean = t.add("running_mean", channels);
        running_var = t.add("running_var", channels);
        dgamma = t.add("dgamma", channels);
        dbeta = t.add("dbeta", channels);
        t.allocate();
        x_host = test::random_values(shape.count(), 91, -1.0f, 3.0f);
        gamma_host = test::random_values(channels.count(), 92, 0.5f, 2.0f);
        beta_host = test::random_values(channels.count(), 93);
        running_mean_host = test::random_values(channels.count(), 94);
        running_var_host = test::random_values(channels.count(), 95, 0.5f, 2.0f);
        dy_host = test::random_values(shape.count(), 96);
        dx_before = test::random_values(shape.count(), 97);
        t.write(x, x_host);
        t.write(gamma, gamma_host);
        t.write(beta, beta_host);
        t.write(running_mean, running_mean_host);
        t.write(running_var, running_var_host);
        t.write(dy, dy_host);
        t.write(dx, dx_before);
    }

    void forward_train() {
        ops::batch_norm_forward_train(test::op_runtime(), momentum, epsilon, t[x], t[gamma], t[beta], t[y],
                                      t[saved_mean], t[saved_inv_std], t[running_mean], t[running_var]);
    }
};

// The reference's view of one training step in float.
struct Reference {
    std::vector<float> y, saved_mean, saved_inv_std;
    Reference(const Layer& layer, std::span<const float> x, std::vector<float>& running_mean,
              std::vector<float>& running_var)
        : y(layer.shape.count()), saved_mean(layer.channels.count()), saved_inv_std(layer.channels.count()) {
        ref::batch_norm_forward_train<float>(layer.shape, momentum, epsilon, x, layer.gamma_host, layer.beta_host, y,
                                             saved_mean, saved_inv_std, running_mean, running_var);
    }
};
}  // namespace

TEST_CASE("batch norm training forward and running statistics match the reference", "[batch_norm]") {
    const Shape shape =
        GENERATE(Shape{4, 6, 1, 1}, Shape{3, 5, 7, 7}, Shape{1, 3, 1, 1}, Shape{1, 2, 3, 3}, Shape{16, 3, 5, 5});
    INFO(shape.to_string());
    Layer layer(shape);
    std::vector<float> running_mean = layer.running_mean_host, running_var = layer.running_var_host;

    layer.forward_train();
    const Reference first(layer, layer.x_host, running_mean, running_var);
    test::require_close(layer.t.read(layer.y), first.y, 1e-5, "y");
    test::require_close(layer.t.read(layer.saved_mean), first.saved_mean, 1e-5, "saved mean");
    test::require_close(layer.t.read(layer.saved_inv_std), first.saved_inv_std, 1e-5, "saved inverse deviation");

    // A second step on other inputs: the running statistics blend both batches.
    const std::vector<float> x2 = test::random_values(shape.count(), 98, -2.0f, 1.0f);
    layer.t.write(layer.x, x2);
    layer.forward_train();
    const Reference second(layer, x2, running_mean, running_var);
    test::require_close(layer.t.read(layer.y), second.y, 1e-5, "y of the second step");
    test::require_close(layer.t.read(layer.running_mean), running_mean, 1e-5, "running mean after two steps");
    test::require_close(layer.t.read(layer.running_var), running_var, 1e-5, "running variance after two steps");
}

TEST_CASE("batch norm running variance uses the unbiased batch variance", "[batch_norm]") {
    // One channel, values 1 and 3: biased variance 1, unbiased 2.
    const Shape shape{2, 1, 1, 1};
    std::vector<double> x{1, 3}, gamma{1}, beta{0}, y(2), mean(1), inv_std(1), running_mean{0}, running_var{1};
    ref::batch_norm_forward_train<double>(shape, 0.5, 0.0, x, gamma, beta, y, mean, inv_std, running_mean, running_var);
    CHECK(mean[0] == 2);
    CHECK(inv_std[0] == 1);
    CHECK(running_mean[0] == 1);
    CHECK(running_var[0] == 1.5);
    CHECK(y == std::vector<double>{-1, 1});
}

TEST_CASE("batch norm evaluation forward matches the reference", "[batch_norm]") {
    const Shape shape = GENERATE(Shape{4, 6, 1, 1}, Shape{3, 5, 7, 7}, Shape{1, 3, 1, 1});
    INFO(shape.to_string());
    Layer layer(shape);
    ops::batch_norm_forward_eval(test::op_runtime(), epsilon, layer.t[layer.x], layer.t[layer.gamma],
                                 layer.t[layer.beta], layer.t[layer.running_mean], layer.t[layer.running_var],
                                 layer.t[layer.y]);
    std::vector<float> y_ref(shape.count());
    ref::batch_norm_forward_eval<float>(shape, epsilon, layer.x_host, layer.gamma_host, layer.beta_host,
                                        layer.running_mean_host, layer.running_var_host, y_ref);
    test::require_close(layer.t.read(layer.y), y_ref, 1e-5, "y");
    // Evaluation leaves the running statistics alone.
    CHECK(layer.t.read(layer.running_mean) == layer.running_mean_host);
    CHECK(layer.t.read(layer.running_var) == layer.running_var_host);
}

TEST_CASE("batch norm backward matches the reference", "[batch_norm]") {
    const Shape shape = GENERATE(Shape{4, 6, 1, 1}, Shape{3, 5, 7, 7}, Shape{1, 2, 3, 3});
    INFO(shape.to_string());
    Layer layer(shape);
    std::vector<float> running_mean = layer.running_mean_host, running_var = layer.running_var_host;
    layer.forward_train();
    const Reference forward(layer, layer.x_host, running_mean, running_var);
    std::vector<float> dx_ref(shape.count()), dgamma_ref(shape.c), dbeta_ref(shape.c);
    ref::batch_norm_backward<float>(shape, layer.x_host, layer.gamma_host, forward.saved_mean, forward.saved_inv_std,
                                    layer.dy_host, dx_ref, dgamma_ref, dbeta_ref);
    // Parameter gradients start as garbage: they must be overwritten.
    layer.t.write(layer.dgamma, test::random_values(shape.c, 99));
    layer.t.write(layer.dbeta, test::random_values(shape.c, 100));

    ops::Runtime& runtime = test::op_runtime();
    auto& t = layer.t;
    SECTION("overwriting the input gradient") {
        ops::batch_norm_backward(runtime, t[layer.x], t[layer.gamma], t[layer.saved_mean], t[layer.saved_inv_std],
                                 t[layer.dy], t[layer.dx], GradWrite::overwrite, t[layer.dgamma], t[layer.dbeta]);
        test::require_close(t.read(layer.dx), dx_ref, 1e-5, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::batch_norm_backward(runtime, t[layer.x], t[layer.gamma], t[layer.saved_mean], t[layer.saved_inv_std],
                                 t[layer.dy], t[layer.dx], GradWrite::accumulate, t[layer.dgamma], t[layer.dbeta]);
        std::vector<float> expected(shape.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = layer.dx_before[i] + dx_ref[i];
        test::require_close(t.read(layer.dx), expected, 1e-5, "dx accumulated", test::max_abs(layer.dx_before));
    }
    SECTION("without an input gradient only the parameter gradients are written") {
        ops::batch_norm_backward(runtime, t[layer.x], t[layer.gamma], t[layer.saved_mean], t[layer.saved_inv_std],
                                 t[layer.dy], Tensor{}, GradWrite::overwrite, t[layer.dgamma], t[layer.dbeta]);
        CHECK(t.read(layer.dx) == layer.dx_before);
    }
    test::require_close(t.read(layer.dgamma), dgamma_ref, 1e-5, "dgamma");
    test::require_close(t.read(layer.dbeta), dbeta_ref, 1e-5, "dbeta");
}

TEST_CASE("batch norm backward on the reference matches finite differences", "[batch_norm]") {
    const Shape shape = GENERATE(Shape{4, 6, 1, 1}, Shape{2, 3, 3, 3});
    INFO(shape.to_string());
    const std::size_t channels = static_cast<std::size_t>(shape.c);
    const std::vector<double> x = test::to_double(test::random_values(shape.count(), 101, -1.0f, 3.0f));
    const std::vector<double> gamma = test::to_double(test::random_values(channels, 102, 0.5f, 2.0f));
    const std::vector<double> beta = test::to_double(test::random_values(channels, 103));
    const std::vector<double> dy = test::to_double(test::random_values(shape.count(), 104));
    // The loss of one training step; the running statistics are scratch.
    const auto loss = [&](std::span<const double> x_in, std::span<const double> gamma_in,
                          std::span<const double> beta_in) {
        std::vector<double> y(shape.count()), mean(channels), inv_std(channels), running(channels, 0.0),
            running_var(channels, 1.0);
        ref::batch_norm_forward_train<double>(shape, 0.9, 1e-5, x_in, gamma_in, beta_in, y, mean, inv_std, running,
                                              running_var);
        return test::weighted_sum(y, dy);
    };
    std::vector<double> y(shape.count()), mean(channels), inv_std(channels), running(channels, 0.0),
        running_var(channels, 1.0), dx(shape.count()), dgamma(channels), dbeta(channels);
    ref::batch_norm_forward_train<double>(shape, 0.9, 1e-5, x, gamma, beta, y, mean, inv_std, running, running_var);
    ref::batch_norm_backward<double>(shape, x, gamma, mean, inv_std, dy, dx, dgamma, dbeta);

    // The loss is a smooth rational function of x: h^2 truncation and roundoff both stay near 1e-9.
    test::require_close(dx, test::numeric_gradient([&](std::span<const double> v) { return loss(v, gamma, beta); }, x),
                        1e-6, "dx against finite differences");
    test::require_close(dgamma,
                        test::numeric_gradient([&](std::span<const double> v) { return loss(x, v, beta); }, gamma),
                        1e-6, "dgamma against finite differences");
    test::require_close(dbeta,
                        test::numeric_gradient([&](std::span<const double> v) { return loss(x, gamma, v); }, beta),
                        1e-6, "dbeta against finite differences");
}

TEST_CASE("batch norm evaluation backward matches the reference", "[batch_norm]") {
    const Shape shape = GENERATE(Shape{4, 6, 1, 1}, Shape{3, 5, 7, 7}, Shape{1, 2, 3, 3});
    INFO(shape.to_string());
    Layer layer(shape);
    std::vector<float> dx_ref(shape.count());
    ref::batch_norm_backward_eval<float>(shape, epsilon, layer.gamma_host, layer.running_var_host, layer.dy_host,
                                         dx_ref);
    ops::Runtime& runtime = test::op_runtime();
    auto& t = layer.t;
    SECTION("overwriting the input gradient") {
        ops::batch_norm_backward_eval(runtime, epsilon, t[layer.gamma], t[layer.running_var], t[layer.dy], t[layer.dx],
                                      GradWrite::overwrite);
        test::require_close(t.read(layer.dx), dx_ref, 1e-5, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::batch_norm_backward_eval(runtime, epsilon, t[layer.gamma], t[layer.running_var], t[layer.dy], t[layer.dx],
                                      GradWrite::accumulate);
        std::vector<float> expected(shape.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = layer.dx_before[i] + dx_ref[i];
        test::require_close(t.read(layer.dx), expected, 1e-5, "dx accumulated", test::max_abs(layer.dx_before));
    }
    // The statistics are the running ones, so the forward's own state is not read or changed.
    CHECK(t.read(layer.running_var) == layer.running_var_host);
}

TEST_CASE("batch norm evaluation backward on the reference matches finite differences", "[batch_norm]") {
    const Shape shape = GENERATE(Shape{4, 6, 1, 1}, Shape{2, 3, 3, 3});
    INFO(shape.to_string());
    const std::size_t channels = static_cast<std::size_t>(shape.c);
    const std::vector<double> x = test::to_double(test::random_values(shape.count(), 111, -1.0f, 3.0f));
    const std::vector<double> gamma = test::to_double(test::random_values(channels, 112, 0.5f, 2.0f));
    const std::vector<double> beta = test::to_double(test::random_values(channels, 113));
    const std::vector<double> mean = test::to_double(test::random_values(channels, 114));
    const std::vector<double> var = test::to_double(test::random_values(channels, 115, 0.5f, 2.0f));
    const std::vector<double> dy = test::to_double(test::random_values(shape.count(), 116));
    const auto loss = [&](std::span<const double> x_in) {
        std::vector<double> y(shape.count());
        ref::batch_norm_forward_eval<double>(shape, 1e-5, x_in, gamma, beta, mean, var, y);
        return test::weighted_sum(y, dy);
    };
    std::vector<double> dx(shape.count());
    ref::batch_norm_backward_eval<double>(shape, 1e-5, gamma, var, dy, dx);
    test::require_close(dx, test::numeric_gradient(loss, x), 1e-6, "dx against finite differences");
}

TEST_CASE("batch norm with parameters of the wrong shape is refused with both shapes", "[batch_norm]") {
    Layer layer({2, 3, 4, 4});
    test::TestTensors t;
    const TensorId wrong = t.add("wrong", {1, 4, 1, 1});
    t.allocate();
    auto& l = layer.t;
    REQUIRE_THROWS_WITH(ops::batch_norm_forward_eval(test::op_runtime(), epsilon, l[layer.x], t[wrong], l[layer.beta],
                                                     l[layer.running_mean], l[layer.running_var], l[layer.y]),
                        "batch norm forward (evaluation): gamma is 1x4x1x1, expected 1x3x1x1");
}
