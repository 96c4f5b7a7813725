// Dense against the C++ reference, and the reference's backward against finite differences.
#include <catch2/catch.hpp>

#include "engine/ops/dense.h"
#include "engine/reference/dense.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/ops/weighted_layer_check.h"

using namespace bps;

namespace {
struct DenseCase {
    Shape x;
    int out;
};

constexpr double dense_tolerance = 1e-5;  // see ops/dense.h
}  // namespace

TEST_CASE("dense forward and backward match the reference on odd shapes", "[dense]") {
    const DenseCase c = GENERATE(DenseCase{{3, 5, 2, 2}, 7}, DenseCase{{1, 6, 1, 1}, 3}, DenseCase{{64, 20, 1, 1}, 10});
    const Shape w_shape{c.out, static_cast<int>(c.x.per_sample()), 1, 1}, b_shape{1, c.out, 1, 1};
    const Shape y_shape{c.x.n, c.out, 1, 1};
    INFO(c.x.to_string() << " to " << c.out << " features");

    test::WeightedLayerTensors layer(c.x, w_shape, b_shape, y_shape, 11);
    test::TestTensors& t = layer.t;
    ops::Runtime& runtime = test::op_runtime();
    ops::dense_forward(runtime, t[layer.x], t[layer.w], t[layer.b], t[layer.y]);
    std::vector<float> y_ref(y_shape.count());
    ref::dense_forward<float>(c.x, w_shape, layer.x_host, layer.w_host, layer.b_host, y_ref);
    test::require_close(t.read(layer.y), y_ref, dense_tolerance, "y");

    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::dense_backward<float>(c.x, w_shape, layer.x_host, layer.w_host, layer.dy_host, dx_ref, dw_ref, db_ref);
    test::check_weighted_backward(
        layer, dx_ref, dw_ref, db_ref, dense_tolerance, [&](const Tensor& dx, ops::GradWrite write) {
            ops::dense_backward(runtime, t[layer.x], t[layer.w], t[layer.dy], dx, write, t[layer.dw], t[layer.db]);
        });
}

TEST_CASE("dense with a fused activation matches the reference layer, then the reference activation", "[dense]") {
    const DenseCase c = GENERATE(DenseCase{{3, 5, 2, 2}, 7}, DenseCase{{64, 20, 1, 1}, 10});
    const ops::FusedActivation activation = GENERATE(from_range(test::fusable_activations()));
    const Shape w_shape{c.out, static_cast<int>(c.x.per_sample()), 1, 1}, b_shape{1, c.out, 1, 1};
    const Shape y_shape{c.x.n, c.out, 1, 1};
    INFO(c.x.to_string() << " to " << c.out << " features, then " << test::describe(activation));

    test::WeightedLayerTensors layer(c.x, w_shape, b_shape, y_shape, 71);
    test::TestTensors& t = layer.t;
    ops::Runtime& runtime = test::op_runtime();
    const ops::Runtime::Launches before = runtime.launches();
    ops::dense_forward(runtime, t[layer.x], t[layer.w], t[layer.b], t[layer.y], activation);
    const ops::Runtime::Launches after = runtime.launches();
    // One GEMM; on CPU devices it adds the bias and applies the activation too, elsewhere one
    // more kernel does.
    CHECK(after.gemms - before.gemms == 1);
    CHECK(after.kernels - before.kernels == (runtime.device().kind == device::DeviceKind::Cpu ? 0u : 1u));
    std::vector<float> z_ref(y_shape.count());
    ref::dense_forward<float>(c.x, w_shape, layer.x_host, layer.w_host, layer.b_host, z_ref);
    const test::FusedActivationReference fused = test::fused_activation_reference(activation, z_ref, layer.dy_host);
    test::require_close(t.read(layer.y), fused.y, dense_tolerance, "y");

    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::dense_backward<float>(c.x, w_shape, layer.x_host, layer.w_host, fused.dz, dx_ref, dw_ref, db_ref);
    test::check_weighted_backward(layer, dx_ref, dw_ref, db_ref, dense_tolerance,
                                  [&](const Tensor& dx, ops::GradWrite write) {
                                      ops::dense_backward(runtime, t[layer.x], t[layer.w], t[layer.dy], dx, write,
                                                          t[layer.dw], t[layer.db], activation, t[layer.y]);
                                  });
    // The products read the gradient before the activation, left in dy.
    test::require_close(t.read(layer.dy), fused.dz, 1e-6, "dy * f'(y), in place");
}

TEST_CASE("dense backward on the reference matches finite differences", "[dense]") {
    const Shape x_shape{2, 3, 2, 1}, w_shape{4, 6, 1, 1};
    const std::vector<double> x = test::to_double(test::random_values(x_shape.count(), 21));
    const std::vector<double> w = test::to_double(test::random_values(w_shape.count(), 22));
    const std::vector<double> b = test::to_double(test::random_values(4, 23));
    const std::vector<double> dy = test::to_double(test::random_values(8, 24));
    std::vector<double> dx(x.size()), dw(w.size()), db(b.size());
    ref::dense_backward<double>(x_shape, w_shape, x, w, dy, dx, dw, db);

    const auto loss = [&](std::span<const double> xs, std::span<const double> ws, std::span<const double> bs) {
        std::vector<double> y(dy.size());
        ref::dense_forward<double>(x_shape, w_shape, xs, ws, bs, y);
        return test::weighted_sum(y, dy);
    };
    constexpr double fd_tolerance = 1e-7;  // the loss is linear in each argument: only rounding remains
    test::require_close(dx, test::numeric_gradient([&](std::span<const double> v) { return loss(v, w, b); }, x),
                        fd_tolerance, "dx against finite differences");
    test::require_close(dw, test::numeric_gradient([&](std::span<const double> v) { return loss(x, v, b); }, w),
                        fd_tolerance, "dweight against finite differences");
    test::require_close(db, test::numeric_gradient([&](std::span<const double> v) { return loss(x, w, v); }, b),
                        fd_tolerance, "dbias against finite differences");
}

TEST_CASE("a dense layer whose weight does not fit its input is refused with the shapes", "[dense]") {
    test::TestTensors t;
    const TensorId x = t.add("x", {3, 20, 1, 1}), w = t.add("w", {7, 6, 1, 1}), b = t.add("b", {1, 7, 1, 1}),
                   y = t.add("y", {3, 7, 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::dense_forward(test::op_runtime(), t[x], t[w], t[b], t[y]),
                        "Dense forward: weight is 7x6x1x1, expected 7x20x1x1 for a 3x20x1x1 input");
}
