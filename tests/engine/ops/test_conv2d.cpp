// Conv2D against the direct C++ reference, the reference's backward against finite differences,
// and the Keras output shapes.
#include <catch2/catch.hpp>
#include <sstream>

#include "engine/ops/conv2d.h"
#include "engine/reference/conv2d.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/ops/weighted_layer_check.h"

using namespace bps;
using model::Conv2dGeometry;
using model::Padding;

namespace {
struct ConvCase {
    Shape x;
    int filters;
    Conv2dGeometry geometry;
};

std::string describe(const ConvCase& c) {
    std::ostringstream text;
    text << c.x.to_string() << " to " << c.filters << " filters, kernel " << c.geometry.kernel_h << "x"
         << c.geometry.kernel_w << ", stride " << c.geometry.stride_h << "x" << c.geometry.stride_w << ", "
         << (c.geometry.padding == Padding::same ? "same" : "valid");
    return text.str();
}

constexpr double conv_tolerance = 1e-5;  // see ops/conv2d.h

// Whether a case runs: every one normally, only those of at most 20,000 input values times filters
// when small_op_tests_only() (the odd-shape cases; the large ones take minutes under Oclgrind).
bool runs(const ConvCase& c) {
    return !test::small_op_tests_only() || c.x.count() * std::size_t(c.filters) <= 20000;
}
}  // namespace

TEST_CASE("conv2d forward and backward match the direct reference on odd shapes", "[conv2d]") {
    const ConvCase c = GENERATE(filter(
        runs,
        values<ConvCase>({ConvCase{{3, 5, 7, 7}, 4, {5, 5, 2, 2, Padding::same}},
                          ConvCase{{3, 5, 7, 7}, 4, {3, 3, 1, 1, Padding::valid}},
                          ConvCase{{3, 5, 7, 7}, 4, {3, 2, 2, 1, Padding::same}},
                          ConvCase{{2, 3, 7, 6}, 4, {3, 2, 2, 1, Padding::valid}},
                          ConvCase{{1, 5, 7, 7}, 4, {3, 3, 1, 1, Padding::same}},
                          ConvCase{{3, 5, 7, 7}, 4, {1, 1, 1, 1, Padding::valid}},
                          // Even input, stride 2: the one padding row goes at the bottom.
                          ConvCase{{2, 3, 6, 6}, 2, {3, 3, 2, 2, Padding::same}},
                          // Even kernel: padding 1 before and 2 after.
                          ConvCase{{2, 3, 5, 5}, 3, {4, 4, 1, 1, Padding::same}},
                          // Long enough for the split filter gradient to sum 16 chunks (the last one short) over
                          // two tiles of filters; and 46 gradient columns (45 weights and the bias) in two tiles.
                          ConvCase{{5, 3, 30, 30}, 40, {3, 3, 1, 1, Padding::valid}},
                          ConvCase{{3, 5, 17, 19}, 33, {3, 3, 2, 1, Padding::same}},
                          // The input gradient over two tiles of 37 input channels, from 20 filters (one full step
                          // of 16 and a zero-padded one per kernel position), with an even kernel and stride 2x3.
                          ConvCase{{2, 37, 9, 11}, 20, {2, 4, 2, 3, Padding::same}},
                          // 657 col rows: more than the own forward's table of rows holds (it decodes as it loads).
                          ConvCase{{2, 73, 6, 5}, 3, {3, 3, 1, 1, Padding::same}},
                          // 14,884 positions: the gemm method's filter gradient over the whole batch is long enough
                          // for ops::gemm to split it into 4 chunks (the last one short), in 2-sample slices not.
                          ConvCase{{4, 2, 63, 63}, 3, {3, 3, 1, 1, Padding::valid}},
                          // Small enough for Oclgrind, the own kernels' tile edges of the large cases above: 324
                          // positions (two chunks of the filter gradient, the last one short) and 37 gradient
                          // columns (two tiles); 33 filters and 33 channels (two tiles of each, the last filter
                          // step zero-padded) with an even kernel.
                          ConvCase{{1, 4, 18, 18}, 2, {3, 3, 1, 1, Padding::same}},
                          ConvCase{{1, 33, 3, 3}, 33, {2, 2, 1, 1, Padding::same}}})));
    // The gemm method over the whole batch at once (these column matrices fit the budget), and a
    // slice of 2 samples at a time (the last one short for odd batches).
    const auto [method, slice] = GENERATE(std::pair{ops::ConvMethod::gemm, 0}, std::pair{ops::ConvMethod::gemm, 2},
                                          std::pair{ops::ConvMethod::own, 0});
    const ops::ConvPlan plan{method, slice};
    INFO(describe(c) << (method == ops::ConvMethod::own
                             ? ", own kernels"
                             : ", im2col and a GEMM, " + (slice == 0 ? std::string("the whole batch at once")
                                                                     : std::to_string(slice) + " samples at a time")));
    const Shape w_shape{c.filters, c.x.c, c.geometry.kernel_h, c.geometry.kernel_w}, b_shape{1, c.filters, 1, 1};
    const Shape y_shape = model::conv2d_output_shape(c.x, c.filters, c.geometry);
    ops::Runtime& runtime = test::op_runtime();
    const std::size_t workspace_elements = ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, plan);

    test::WeightedLayerTensors layer(c.x, w_shape, b_shape, y_shape, 31, workspace_elements);
    test::TestTensors& t = layer.t;
    ops::conv2d_forward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.b], t[layer.y], t[layer.workspace], plan);
    std::vector<float> y_ref(y_shape.count());
    ref::conv2d_forward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, layer.b_host, y_ref);
    test::require_close(t.read(layer.y), y_ref, conv_tolerance, "y");

    // The backward must not rely on what the forward left in the workspace.
    t.write(layer.workspace, test::random_values(workspace_elements, 40));
    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::conv2d_backward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, layer.dy_host, dx_ref, dw_ref,
                                db_ref);
    test::check_weighted_backward(layer, dx_ref, dw_ref, db_ref, conv_tolerance,
                                  [&](const Tensor& dx, ops::GradWrite write) {
                                      ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], dx,
                                                           write, t[layer.dw], t[layer.db], t[layer.workspace], plan);
                                  });
}

TEST_CASE("conv2d with a fused activation matches the reference convolution, then the reference activation",
          "[conv2d]") {
    const ConvCase c =
        GENERATE(filter(runs, values<ConvCase>({ConvCase{{3, 5, 7, 7}, 4, {3, 3, 1, 1, Padding::valid}},
                                                ConvCase{{2, 37, 9, 11}, 20, {2, 4, 2, 3, Padding::same}},
                                                // 16 chunks of the own filter gradient, two tiles of filters; planes of
                                                // 784 (not a multiple of the 16-wide sum of the bias gradient).
                                                ConvCase{{5, 3, 30, 30}, 40, {3, 3, 1, 1, Padding::valid}}})));
    const ops::FusedActivation activation = GENERATE(from_range(test::fusable_activations()));
    const auto [method, slice] = GENERATE(std::pair{ops::ConvMethod::gemm, 0}, std::pair{ops::ConvMethod::gemm, 2},
                                          std::pair{ops::ConvMethod::own, 0});
    const ops::ConvPlan plan{method, slice};
    INFO(describe(c) << ", then " << test::describe(activation) << ", "
                     << (method == ops::ConvMethod::own ? "own kernels" : "gemm, slice " + std::to_string(slice)));
    const Shape w_shape{c.filters, c.x.c, c.geometry.kernel_h, c.geometry.kernel_w}, b_shape{1, c.filters, 1, 1};
    const Shape y_shape = model::conv2d_output_shape(c.x, c.filters, c.geometry);
    ops::Runtime& runtime = test::op_runtime();
    const std::size_t workspace_elements = ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, plan);

    test::WeightedLayerTensors layer(c.x, w_shape, b_shape, y_shape, 51, workspace_elements);
    test::TestTensors& t = layer.t;
    ops::conv2d_forward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.b], t[layer.y], t[layer.workspace], plan,
                        activation);
    std::vector<float> z_ref(y_shape.count());
    ref::conv2d_forward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, layer.b_host, z_ref);
    const test::FusedActivationReference fused = test::fused_activation_reference(activation, z_ref, layer.dy_host);
    test::require_close(t.read(layer.y), fused.y, conv_tolerance, "y");

    // The backward reads the forward's activated output (and nothing it left in the workspace).
    t.write(layer.workspace, test::random_values(workspace_elements, 60));
    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::conv2d_backward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, fused.dz, dx_ref, dw_ref, db_ref);
    test::check_weighted_backward(
        layer, dx_ref, dw_ref, db_ref, conv_tolerance, [&](const Tensor& dx, ops::GradWrite write) {
            ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], dx, write, t[layer.dw],
                                 t[layer.db], t[layer.workspace], plan, activation, t[layer.y]);
        });
}

TEST_CASE("the gemm method's column matrix kept from the forward spares the backward its im2col", "[conv2d]") {
    const ConvCase c =
        GENERATE(filter(runs, values<ConvCase>({ConvCase{{3, 5, 7, 7}, 4, {3, 2, 2, 1, Padding::same}},
                                                // The filter gradient split into 4 chunks over the whole batch.
                                                ConvCase{{4, 2, 63, 63}, 3, {3, 3, 1, 1, Padding::valid}}})));
    INFO(describe(c));
    ops::Runtime& runtime = test::op_runtime();
    const std::size_t columns =
        ops::conv2d_kept_columns_elements(runtime, c.x, c.filters, c.geometry, ops::ConvMethod::gemm);
    const std::size_t rows = std::size_t(c.x.c) * std::size_t(c.geometry.kernel_h) * std::size_t(c.geometry.kernel_w);
    // Rows of every output position of the batch, each rounded up to whole 16-value cache lines,
    // an odd number of them.
    const std::size_t positions =
        model::conv2d_output_shape(c.x, c.filters, c.geometry).count() / std::size_t(c.filters);
    std::size_t row_length = (positions + 15) / 16 * 16;
    if ((row_length / 16) % 2 == 0) row_length += 16;
    REQUIRE(columns == rows * row_length);
    // None to keep where the batch runs in slices, or with the own kernels (no column matrix).
    CHECK(ops::conv2d_kept_columns_elements(runtime, c.x, c.filters, c.geometry, {ops::ConvMethod::gemm, 1}) == 0);
    CHECK(ops::conv2d_kept_columns_elements(runtime, c.x, c.filters, c.geometry, ops::ConvMethod::own) == 0);

    const Shape w_shape{c.filters, c.x.c, c.geometry.kernel_h, c.geometry.kernel_w}, b_shape{1, c.filters, 1, 1};
    const Shape y_shape = model::conv2d_output_shape(c.x, c.filters, c.geometry);
    // With the columns kept elsewhere, the workspace leaves out their room (its regions start on
    // 64-byte boundaries): the forward and backward below run in the smaller one.
    const std::size_t workspace_elements = ops::conv2d_workspace_elements(
        runtime, c.x, c.filters, c.geometry, ops::ConvMethod::gemm, ops::ColumnMatrix::kept);
    const std::size_t full_workspace_elements =
        ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, ops::ConvMethod::gemm);
    CHECK(full_workspace_elements - workspace_elements == (columns + 15) / 16 * 16);
    // Planning kept columns where there can be none is refused with the sizes.
    CHECK_THROWS_WITH(ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, {ops::ConvMethod::gemm, 1},
                                                     ops::ColumnMatrix::kept),
                      Catch::Contains("cannot keep its column matrix") && Catch::Contains("1 samples a slice") &&
                          Catch::Contains(c.x.to_string()));
    CHECK_THROWS_WITH(ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, ops::ConvMethod::own,
                                                     ops::ColumnMatrix::kept),
                      Catch::Contains("cannot keep its column matrix"));

    test::WeightedLayerTensors layer(c.x, w_shape, b_shape, y_shape, 81, workspace_elements);
    test::TestTensors& t = layer.t;
    test::TestTensors columns_memory;  // the layer's tensors are allocated already
    const TensorId kept = columns_memory.add("kept columns", Shape{1, static_cast<int>(columns), 1, 1});
    const TensorId small = columns_memory.add("small", Shape{1, static_cast<int>(columns - 1), 1, 1});
    const TensorId full_workspace =
        columns_memory.add("full workspace", Shape{1, static_cast<int>(full_workspace_elements), 1, 1});
    columns_memory.allocate();
    const ops::ConvPlan plan{ops::ConvMethod::gemm, 0, columns_memory[kept]};
    ops::conv2d_forward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.b], t[layer.y], t[layer.workspace], plan);
    std::vector<float> y_ref(y_shape.count());
    ref::conv2d_forward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, layer.b_host, y_ref);
    test::require_close(t.read(layer.y), y_ref, conv_tolerance, "y");

    // Another layer sharing the workspace overwrites it; the backward reads the kept columns.
    t.write(layer.workspace, test::random_values(workspace_elements, 90));
    std::vector<float> dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::conv2d_backward<float>(c.geometry, c.x, w_shape, layer.x_host, layer.w_host, layer.dy_host, dx_ref, dw_ref,
                                db_ref);
    const ops::Runtime::Launches before = runtime.launches();
    ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], t[layer.dx],
                         ops::GradWrite::overwrite, t[layer.dw], t[layer.db], t[layer.workspace], plan);
    const ops::Runtime::Launches after = runtime.launches();
    test::require_close(t.read(layer.dx), dx_ref, conv_tolerance, "dx");
    test::require_close(t.read(layer.dw), dw_ref, conv_tolerance, "dweight");
    test::require_close(t.read(layer.db), db_ref, conv_tolerance, "dbias");
    // The same backward building its own columns (in a workspace with room for them) launches one
    // kernel more: the im2col. The smaller workspace is too small for it.
    const ops::Runtime::Launches rebuilt_before = runtime.launches();
    ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], t[layer.dx],
                         ops::GradWrite::overwrite, t[layer.dw], t[layer.db], columns_memory[full_workspace],
                         ops::ConvMethod::gemm);
    const ops::Runtime::Launches rebuilt = runtime.launches();
    runtime.finish();
    CHECK(after.gemms - before.gemms == rebuilt.gemms - rebuilt_before.gemms);
    CHECK(after.kernels - before.kernels + 1 == rebuilt.kernels - rebuilt_before.kernels);
    CHECK_THROWS_WITH(
        ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], t[layer.dx],
                             ops::GradWrite::overwrite, t[layer.dw], t[layer.db], t[layer.workspace],
                             ops::ConvMethod::gemm),
        Catch::Contains("workspace") && Catch::Contains(std::to_string(full_workspace_elements) + " values"));

    // Kept columns too small for the batch, or a plan that slices it, are refused with the sizes.
    CHECK_THROWS_WITH(ops::conv2d_forward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.b], t[layer.y],
                                          t[layer.workspace], {ops::ConvMethod::gemm, 0, columns_memory[small]}),
                      Catch::Contains("kept columns") && Catch::Contains(std::to_string(columns) + " values"));
    CHECK_THROWS_WITH(ops::conv2d_backward(runtime, c.geometry, t[layer.x], t[layer.w], t[layer.dy], t[layer.dx],
                                           ops::GradWrite::overwrite, t[layer.dw], t[layer.db], t[layer.workspace],
                                           {ops::ConvMethod::gemm, 1, columns_memory[kept]}),
                      Catch::Contains("in one slice") && Catch::Contains("1 samples a slice"));
}

TEST_CASE("the gemm method's workspace stops growing with the batch once a slice fills the column budget", "[conv2d]") {
    // cifar's conv2: 288 col rows x 1,024 positions a sample, so a slice holds 28 samples of the
    // 8,388,608-value budget. Past that, only the product (32 filters x positions) grows.
    const Conv2dGeometry geometry{3, 3, 1, 1, Padding::same};
    const std::size_t per_sample_col = 288 * 1024, per_sample_product = 32 * 1024;
    const std::size_t slice = ops::column_budget_values() / per_sample_col;
    REQUIRE(slice >= 2);
    const auto workspace = [&](int batch) {
        return ops::conv2d_workspace_elements(test::op_runtime(), {batch, 32, 32, 32}, 32, geometry,
                                              ops::ConvMethod::gemm);
    };
    // Below a slice, the column matrix grows with the batch too.
    CHECK(workspace(2) - workspace(1) == per_sample_col + per_sample_product);
    CHECK(workspace(256) - workspace(128) == 128 * per_sample_product);
    CHECK(workspace(256) < 256 * per_sample_col);
    // An explicit slice of one sample: one sample's column matrix, however large the batch. The
    // rows of both it and the product are 16 values longer (1,040 and 65,552: an odd number of
    // cache lines apart, not a power of two).
    CHECK(ops::conv2d_workspace_elements(test::op_runtime(), {64, 32, 32, 32}, 32, geometry,
                                         ops::ConvPlan{ops::ConvMethod::gemm, 1}) ==
          per_sample_col + 288 * 16 + 64 * per_sample_product + 32 * 16);
}

TEST_CASE("conv2d backward on the reference matches finite differences", "[conv2d]") {
    const Conv2dGeometry geometry =
        GENERATE(Conv2dGeometry{3, 3, 2, 2, Padding::same}, Conv2dGeometry{3, 2, 2, 1, Padding::valid},
                 Conv2dGeometry{4, 4, 1, 1, Padding::same});
    const Shape x_shape{2, 3, 5, 5}, w_shape{2, 3, geometry.kernel_h, geometry.kernel_w}, b_shape{1, 2, 1, 1};
    const Shape y_shape = model::conv2d_output_shape(x_shape, 2, geometry);
    INFO(describe({x_shape, 2, geometry}));
    const std::vector<double> x = test::to_double(test::random_values(x_shape.count(), 41));
    const std::vector<double> w = test::to_double(test::random_values(w_shape.count(), 42));
    const std::vector<double> b = test::to_double(test::random_values(b_shape.count(), 43));
    const std::vector<double> dy = test::to_double(test::random_values(y_shape.count(), 44));
    std::vector<double> dx(x.size()), dw(w.size()), db(b.size());
    ref::conv2d_backward<double>(geometry, x_shape, w_shape, x, w, dy, dx, dw, db);

    const auto loss = [&](std::span<const double> xs, std::span<const double> ws, std::span<const double> bs) {
        std::vector<double> y(dy.size());
        ref::conv2d_forward<double>(geometry, x_shape, w_shape, xs, ws, bs, y);
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

TEST_CASE("conv2d output shapes follow Keras", "[conv2d]") {
    CHECK(model::conv2d_output_shape({64, 1, 28, 28}, 32, {3, 3, 1, 1, Padding::valid}) == Shape{64, 32, 26, 26});
    CHECK(model::conv2d_output_shape({3, 5, 7, 7}, 4, {5, 5, 2, 2, Padding::same}) == Shape{3, 4, 4, 4});
    CHECK(model::conv2d_output_shape({1, 3, 28, 28}, 8, {3, 3, 1, 1, Padding::same}) == Shape{1, 8, 28, 28});
    CHECK(model::conv2d_output_shape({1, 3, 6, 6}, 8, {3, 3, 2, 2, Padding::valid}) == Shape{1, 8, 2, 2});
    CHECK(model::conv2d_output_shape({1, 3, 5, 5}, 8, {2, 2, 2, 2, Padding::valid}) == Shape{1, 8, 2, 2});
    CHECK(model::conv2d_output_shape({2, 3, 7, 6}, 4, {3, 2, 2, 1, Padding::valid}) == Shape{2, 4, 3, 5});
    CHECK(model::conv2d_output_shape({2, 3, 7, 6}, 4, {3, 2, 2, 1, Padding::same}) == Shape{2, 4, 4, 6});
    // A same kernel larger than the input only pads more.
    CHECK(model::conv2d_output_shape({1, 1, 3, 3}, 1, {5, 5, 1, 1, Padding::same}) == Shape{1, 1, 3, 3});
}

TEST_CASE("a valid conv2d kernel larger than its input is refused with both sizes", "[conv2d]") {
    REQUIRE_THROWS_WITH(model::conv2d_output_shape({1, 1, 3, 3}, 4, {5, 5, 1, 1, Padding::valid}),
                        "Conv2D: a 5x5 kernel does not fit a 3x3 input with valid padding");
}

TEST_CASE("a conv2d weight that does not match the geometry is refused with the shapes", "[conv2d]") {
    const Conv2dGeometry geometry{3, 3, 1, 1, Padding::valid};
    const Shape x_shape{2, 3, 5, 5};
    test::TestTensors t;
    const TensorId x = t.add("x", x_shape), w = t.add("w", {4, 3, 3, 2}), b = t.add("b", {1, 4, 1, 1}),
                   y = t.add("y", {2, 4, 3, 3});
    const TensorId workspace =
        t.add("workspace",
              {1, static_cast<int>(ops::conv2d_workspace_elements(test::op_runtime(), x_shape, 4, geometry)), 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::conv2d_forward(test::op_runtime(), geometry, t[x], t[w], t[b], t[y], t[workspace]),
                        "Conv2D forward: weight is 4x3x3x2, expected 4x3x3x3 for a 2x3x5x5 input");
}
