// Dense against the C++ reference, and the reference's backward against finite differences.
#include <catch2/catch.hpp>

#include "ops/dense.h"
#include "ops/op_checks.h"
#include "reference/dense.h"

using namespace bps;

namespace {
struct DenseCase {
    Shape x;
    int out;
};

constexpr double tolerance = 1e-5;  // see ops/dense.h
}  // namespace

TEST_CASE("dense forward and backward match the reference on odd shapes", "[dense]") {
    const DenseCase c = GENERATE(DenseCase{{3, 5, 2, 2}, 7}, DenseCase{{1, 6, 1, 1}, 3}, DenseCase{{64, 20, 1, 1}, 10});
    const Shape w_shape{c.out, static_cast<int>(c.x.per_sample()), 1, 1}, b_shape{1, c.out, 1, 1};
    const Shape y_shape{c.x.n, c.out, 1, 1};
    INFO(c.x.to_string() << " to " << c.out << " features");

    test::TestTensors t;
    const TensorId x = t.add("x", c.x), w = t.add("w", w_shape), b = t.add("b", b_shape), y = t.add("y", y_shape);
    const TensorId dy = t.add("dy", y_shape), dx = t.add("dx", c.x), dw = t.add("dw", w_shape),
                   db = t.add("db", b_shape);
    t.allocate();
    const std::vector<float> x_host = test::random_values(c.x.count(), 11);
    const std::vector<float> w_host = test::random_values(w_shape.count(), 12);
    const std::vector<float> b_host = test::random_values(b_shape.count(), 13);
    const std::vector<float> dy_host = test::random_values(y_shape.count(), 14);
    const std::vector<float> dx_before = test::random_values(c.x.count(), 15);
    t.write(x, x_host);
    t.write(w, w_host);
    t.write(b, b_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);
    // Stale values in the outputs show that they are overwritten, not added to.
    t.write(y, test::random_values(y_shape.count(), 16));
    t.write(dw, test::random_values(w_shape.count(), 17));
    t.write(db, test::random_values(b_shape.count(), 18));

    ops::Runtime& runtime = test::op_runtime();
    ops::dense_forward(runtime, t[x], t[w], t[b], t[y]);
    std::vector<float> y_ref(y_shape.count());
    ref::dense_forward<float>(c.x, w_shape, x_host, w_host, b_host, y_ref);
    test::require_close(t.read(y), y_ref, tolerance, "y");

    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::dense_backward<float>(c.x, w_shape, x_host, w_host, dy_host, dx_ref, dw_ref, db_ref);
    SECTION("overwriting the input gradient") {
        ops::dense_backward(runtime, t[x], t[w], t[dy], t[dx], ops::GradWrite::overwrite, t[dw], t[db]);
        test::require_close(t.read(dx), dx_ref, tolerance, "dx");
    }
    SECTION("adding to the input gradient") {
        ops::dense_backward(runtime, t[x], t[w], t[dy], t[dx], ops::GradWrite::accumulate, t[dw], t[db]);
        std::vector<float> expected(c.x.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = dx_before[i] + dx_ref[i];
        test::require_close(t.read(dx), expected, tolerance, "dx accumulated", test::max_abs(dx_before));
    }
    SECTION("without an input gradient") {
        ops::dense_backward(runtime, t[x], t[w], t[dy], Tensor{nullptr, 0, c.x}, ops::GradWrite::overwrite, t[dw],
                            t[db]);
        test::require_close(t.read(dx), dx_before, 0, "dx left alone");
    }
    test::require_close(t.read(dw), dw_ref, tolerance, "dweight");
    test::require_close(t.read(db), db_ref, tolerance, "dbias");
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
