#include "engine/ops/conv2d.h"

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#include "engine/ops/gemm.h"
#include "engine/ops/shape_check.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/conv2d.cl), named once.
const KernelId conv2d_im2col_kernel{"conv2d", "conv2d_im2col"};
const KernelId conv2d_filter_gradient_sum_kernel{"conv2d", "conv2d_filter_gradient_sum"};
const KernelId conv2d_output_kernel{"conv2d", "conv2d_output"};
const KernelId conv2d_gradient_to_cnhw_kernel{"conv2d", "conv2d_gradient_to_cnhw"};
const KernelId conv2d_col2im_kernel{"conv2d", "conv2d_col2im"};
const KernelId conv2d_filter_gradient_partial_kernel{"conv2d", "conv2d_filter_gradient_partial"};
const KernelId conv2d_forward_implicit_kernel{"conv2d", "conv2d_forward_implicit"};
const KernelId conv2d_backward_data_implicit_kernel{"conv2d", "conv2d_backward_data_implicit"};

using model::conv_axis;
using Axis = model::ConvAxis;

std::string size_text(int h, int w) {
    return std::to_string(h) + "x" + std::to_string(w);
}

// Everything the kernels and GEMMs need, derived once from the input and the geometry.
struct Layout {
    int batch, channels, height, width;
    int filters;
    Axis rows, cols;
    int kernel_h, kernel_w, stride_h, stride_w;
    int slice = 1;              // the gemm method's samples per column matrix
    bool columns_kept = false;  // the gemm method's column matrix is ConvPlan::kept_columns, not the workspace's

    std::size_t col_rows() const { return std::size_t(channels) * std::size_t(kernel_h) * std::size_t(kernel_w); }
    std::size_t col_columns() const { return std::size_t(batch) * std::size_t(rows.out) * std::size_t(cols.out); }
    std::size_t plane() const { return std::size_t(rows.out) * std::size_t(cols.out); }
    // The whole batch's column matrix, and whether the method can keep it from the forward for
    // the backward (ConvPlan::kept_columns): the gemm method with the whole batch in one slice.
    std::size_t batch_columns() const { return col_rows() * gemm_padded_ld(col_columns()); }
    bool columns_keepable(ConvMethod method) const { return method == ConvMethod::gemm && slice == batch; }
    std::size_t sample_size() const { return std::size_t(channels) * std::size_t(height) * std::size_t(width); }
    // Rounded up to a multiple of 16 values: 64 bytes, the boundary each workspace region starts
    // on (GEMM kernels read it faster), and the own kernels' step.
    static std::size_t aligned(std::size_t count) { return (count + 15) / 16 * 16; }
    // The distances between the rows of col (one slice's positions) and of cnhw (the batch's):
    // never a power of two, which the products' reads of many rows in step would pay for.
    std::size_t col_ld() const { return gemm_padded_ld(std::size_t(slice) * plane()); }
    std::size_t cnhw_ld() const { return gemm_padded_ld(col_columns()); }
    // The filter gradient sums over P in chunks of at least min_chunk values (a multiple of the
    // kernel's step of 16), enough of them that the work-groups (output tiles x chunks) fill a
    // large GPU, but no more than that: the partial sums stay a small buffer.
    static constexpr std::size_t min_chunk = 256, target_groups = 1024;
    // The own kernels' output tile: tile_m channels (filters or input channels) by tile_n of the
    // long side (positions or gradient columns); kernels/conv2d.cl's TILE_M and TILE_N, which the
    // device's tuning sets (the runtime's, device/kernel_tuning.h).
    std::size_t tile_m = 32, tile_n = 32;
    std::size_t tiles_m(std::size_t count) const { return (count + tile_m - 1) / tile_m; }
    std::size_t tiles_n(std::size_t count) const { return (count + tile_n - 1) / tile_n; }
    std::size_t tiles() const { return tiles_n(col_rows() + 1) * tiles_m(std::size_t(filters)); }
    std::size_t chunk() const {
        const std::size_t wanted_chunks = std::max<std::size_t>(1, (target_groups + tiles() - 1) / tiles());
        const std::size_t even = (col_columns() + wanted_chunks - 1) / wanted_chunks;
        return std::max(min_chunk, aligned(even));
    }
    std::size_t chunks() const { return (col_columns() + chunk() - 1) / chunk(); }
    // One partial sum per chunk, filter and (col row or bias).
    std::size_t partial_count() const { return chunks() * std::size_t(filters) * (col_rows() + 1); }
    // The gemm method's workspace: one slice's col (none when the columns are kept elsewhere), then
    // the whole batch's cnhw product, then the scratch of the filter gradient's split product
    // (ops::gemm_split_scratch_values; the first slice is the longest). The own kernels'
    // workspace: the partial sums alone (they read x and dy in place).
    std::size_t cnhw_offset() const { return columns_kept ? 0 : aligned(col_rows() * col_ld()); }
    std::size_t split_offset() const { return aligned(cnhw_offset() + std::size_t(filters) * cnhw_ld()); }
    std::size_t split_values() const {
        return gemm_split_scratch_values(std::size_t(filters), col_rows(), std::size_t(slice) * plane());
    }
    std::size_t gemm_workspace() const { return split_offset() + split_values(); }
    std::size_t workspace(ConvMethod method) const {
        return method == ConvMethod::own ? partial_count() : gemm_workspace();
    }
};

// Samples per gemm slice: as asked, or as many as fit the column budget; at least one, at most
// the batch.
int slice_of(const Layout& l, int asked) {
    const std::size_t per_sample = std::max<std::size_t>(1, l.col_rows() * l.plane());
    const std::size_t fitting = asked > 0 ? std::size_t(asked) : column_budget_values() / per_sample;
    return static_cast<int>(std::clamp<std::size_t>(fitting, 1, std::size_t(l.batch)));
}

Layout layout_of(const Runtime& runtime, const Shape& input, int out_channels, const model::Conv2dGeometry& g,
                 int asked_slice) {
    model::conv2d_output_shape(input, out_channels, g);  // checks the sizes, with the learner's message
    Layout l{input.n,
             input.c,
             input.h,
             input.w,
             out_channels,
             conv_axis(input.h, g.kernel_h, g.stride_h, g.padding),
             conv_axis(input.w, g.kernel_w, g.stride_w, g.padding),
             g.kernel_h,
             g.kernel_w,
             g.stride_h,
             g.stride_w};
    // The kernels index with int, the OpenCL C type every device handles. The whole batch's
    // column matrix bounds what either method indexes (it holds every value the products read).
    l.slice = l.batch;
    if (l.gemm_workspace() > std::size_t(INT_MAX))
        throw std::invalid_argument(
            "a " + input.to_string() + " input with " + std::to_string(out_channels) + " filters of " +
            size_text(g.kernel_h, g.kernel_w) + " needs " + std::to_string(l.gemm_workspace()) +
            " workspace values, more than one kernel can index (" + std::to_string(INT_MAX) + ")");
    l.slice = slice_of(l, asked_slice);
    l.tile_m = runtime.tuning().conv.tile_m();
    l.tile_n = runtime.tuning().conv.tile_n();
    return l;
}

ConvMethod resolved(const Runtime& runtime, ConvMethod method) {
    if (method != ConvMethod::automatic) return method;
    return runtime.device().kind == device::DeviceKind::Cpu ? ConvMethod::gemm : ConvMethod::own;
}

// Checks the parameters and the workspace; the weight's first dimension gives the filter count.
Layout checked_layout(const Runtime& runtime, const model::Conv2dGeometry& g, const Tensor& x, const Tensor& weight,
                      const Tensor& bias, const Tensor& workspace, const ConvPlan& plan, const char* op,
                      const char* bias_name) {
    Layout l = layout_of(runtime, x.shape, weight.shape.n, g, plan.samples_per_slice);
    require_shape(weight, Shape{l.filters, l.channels, g.kernel_h, g.kernel_w}, op, "weight", x.shape);
    require_shape(bias, Shape{1, l.filters, 1, 1}, op, bias_name, x.shape);
    // Kept columns first: the workspace then needs no room for them.
    l.columns_kept = plan.method == ConvMethod::gemm && plan.kept_columns.buffer != nullptr;
    const std::size_t columns = l.batch_columns();
    if (l.columns_kept && (!l.columns_keepable(plan.method) || plan.kept_columns.count() < columns))
        throw std::invalid_argument(std::string(op) + ": kept columns " + plan.kept_columns.shape.to_string() +
                                    " cannot hold the column matrix of a " + std::to_string(l.batch) +
                                    "-sample batch in one slice (" + std::to_string(columns) + " values, " +
                                    std::to_string(l.slice) + " samples a slice)");
    const std::size_t needed = l.workspace(plan.method);
    if (workspace.count() < needed)
        throw std::invalid_argument(std::string(op) + ": workspace " + workspace.shape.to_string() +
                                    " holds fewer than the " + std::to_string(needed) + " values a " +
                                    x.shape.to_string() + " input needs");
    return l;
}

Tensor region(const Tensor& workspace, std::size_t offset, std::size_t count) {
    return Tensor{workspace.buffer, workspace.offset + offset, Shape{1, static_cast<int>(count), 1, 1}};
}

Tensor col_of(const Tensor& workspace, const Layout& l) {
    return region(workspace, 0, l.col_rows() * l.col_ld());
}
// The column matrix of the gemm method: the plan's kept columns (checked_layout checked them), or
// the workspace's.
Tensor columns_of(const Tensor& workspace, const Layout& l, const ConvPlan& plan) {
    if (!l.columns_kept) return col_of(workspace, l);
    return region(plan.kept_columns, 0, l.batch_columns());
}
Tensor cnhw_of(const Tensor& workspace, const Layout& l) {
    return region(workspace, l.cnhw_offset(), std::size_t(l.filters) * l.cnhw_ld());
}
// Empty when no slice's filter gradient is long enough to split: gemm then runs it whole.
Tensor split_scratch_of(const Tensor& workspace, const Layout& l) {
    return region(workspace, l.split_offset(), l.split_values());
}
Tensor partial_of(const Tensor& workspace, const Layout& l) {
    return region(workspace, 0, l.partial_count());
}

// One slice of the gemm method: samples [first, first + count) of the batch.
struct Slice {
    int first, count;
    std::size_t columns(const Layout& l) const { return std::size_t(count) * l.plane(); }
    // Its samples of an NCHW tensor (x or dx).
    Tensor samples(const Tensor& t, const Layout& l) const {
        return Tensor{t.buffer, t.offset + std::size_t(first) * l.sample_size(),
                      Shape{count, t.shape.c, t.shape.h, t.shape.w}};
    }
    // Its columns of a matrix whose rows run over the whole batch's positions (cnhw).
    Tensor columns_of(const Tensor& t, const Layout& l) const {
        return Tensor{t.buffer, t.offset + std::size_t(first) * l.plane(), t.shape};
    }
};

template <typename Body>
void for_each_slice(const Layout& l, Body body) {
    for (int first = 0; first < l.batch; first += l.slice) body(Slice{first, std::min(l.slice, l.batch - first)});
}

// col[K, slice columns] from the slice's samples of x.
void im2col(Runtime& runtime, const Layout& l, const Slice& slice, const Tensor& x, const Tensor& col) {
    runtime.run_3d(conv2d_im2col_kernel, std::size_t(slice.count), l.col_rows(), 1, slice.count, l.channels, l.height,
                   l.width, l.rows.out, l.cols.out, l.kernel_h, l.kernel_w, l.stride_h, l.stride_w, l.rows.pad_before,
                   l.cols.pad_before, slice.samples(x, l), col, static_cast<int>(l.col_ld()));
}

constexpr std::size_t group_side = 8;  // their reqd_work_group_size

// The own kernels are written for groups of 8x8 work-items.
void require_group(Runtime& runtime, const KernelId& kernel, const char* what) {
    const cl::Kernel& k = runtime.kernel(kernel);
    if (k.max_group_size() < group_side * group_side)
        throw std::runtime_error(std::string(what) + " needs work-groups of " +
                                 std::to_string(group_side * group_side) + " work-items, and " + runtime.device().name +
                                 " allows " + std::to_string(k.max_group_size()) + " for it");
}

// The geometry arguments every implicit kernel takes first.
template <typename... Rest>
void run_implicit(Runtime& runtime, const KernelId& kernel, const char* what, std::array<std::size_t, 3> groups,
                  const Layout& l, const Rest&... rest) {
    require_group(runtime, kernel, what);
    runtime.run_groups(kernel, groups, {group_side, group_side, 1}, l.batch, l.channels, l.height, l.width, l.rows.out,
                       l.cols.out, l.kernel_h, l.kernel_w, l.stride_h, l.stride_w, l.rows.pad_before, l.cols.pad_before,
                       l.filters, rest...);
}

// dweight and dbias from x and dy in place: chunk partial sums, then their ordered sum.
void split_filter_gradient(Runtime& runtime, const Layout& l, const Tensor& x, const Tensor& dy, const Tensor& partial,
                           const Tensor& dweight, const Tensor& dbias) {
    const std::size_t columns = l.col_rows() + 1;  // the col rows, then the bias
    run_implicit(runtime, conv2d_filter_gradient_partial_kernel, "Conv2D backward",
                 {l.tiles_n(columns), l.tiles_m(std::size_t(l.filters)), l.chunks()}, l, static_cast<int>(l.chunk()), x,
                 dy, partial);
    runtime.run_3d(conv2d_filter_gradient_sum_kernel, columns, std::size_t(l.filters), 1, l.filters,
                   static_cast<int>(l.col_rows()), static_cast<int>(l.chunks()), partial, dweight, dbias);
}
}  // namespace

std::size_t column_budget_values() {
    // 32 MiB of floats: at batch 64 as fast as the unsliced batch on 2 and 16 cores, where smaller
    // slices lost to the cost of more commands (docs/performance.md), while cifar at batch 256
    // needs 516 MiB instead of 773.
    return std::size_t(1) << 23;
}

std::size_t conv2d_kept_columns_elements(const Runtime& runtime, const Shape& input, int out_channels,
                                         const model::Conv2dGeometry& geometry, ConvPlan plan) {
    const Layout l = layout_of(runtime, input, out_channels, geometry, plan.samples_per_slice);
    return l.columns_keepable(resolved(runtime, plan.method)) ? l.batch_columns() : 0;
}

std::size_t conv2d_workspace_elements(const Runtime& runtime, const Shape& input, int out_channels,
                                      const model::Conv2dGeometry& geometry, ConvPlan plan, ColumnMatrix columns) {
    Layout l = layout_of(runtime, input, out_channels, geometry, plan.samples_per_slice);
    const ConvMethod method = resolved(runtime, plan.method);
    if (columns == ColumnMatrix::kept) {
        if (!l.columns_keepable(method))
            throw std::invalid_argument("Conv2D: a " + input.to_string() + " input with " +
                                        std::to_string(out_channels) + " filters cannot keep its column matrix (" +
                                        std::to_string(l.slice) + " samples a slice; kept columns need the gemm " +
                                        "method with the whole batch in one slice)");
        l.columns_kept = true;
    }
    return l.workspace(method);
}

void conv2d_forward(Runtime& runtime, const model::Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                    const Tensor& bias, const Tensor& y, const Tensor& workspace, ConvPlan plan,
                    const std::optional<FusedActivation>& activation) {
    plan.method = resolved(runtime, plan.method);
    const Layout l = checked_layout(runtime, geometry, x, weight, bias, workspace, plan, "Conv2D forward", "bias");
    require_shape(y, Shape{l.batch, l.filters, l.rows.out, l.cols.out}, "Conv2D forward", "y", x.shape);
    require_fusable(activation, y, y, "Conv2D forward");
    const int kind = FusedActivation::kernel_kind(activation);
    const float slope = FusedActivation::kernel_slope(activation);
    if (plan.method == ConvMethod::own) {
        run_implicit(runtime, conv2d_forward_implicit_kernel, "Conv2D forward",
                     {l.tiles_n(l.col_columns()), l.tiles_m(std::size_t(l.filters)), 1}, l, x, weight, bias, y, kind,
                     slope);
        return;
    }
    const Tensor col = columns_of(workspace, l, plan), cnhw = cnhw_of(workspace, l);
    const std::size_t k = l.col_rows(), col_ld = l.col_ld(), cnhw_ld = l.cnhw_ld();
    for_each_slice(l, [&](const Slice& slice) {
        im2col(runtime, l, slice, x, col);
        // The slice's columns of cnhw[Cout, P] = weight[Cout, K] * col[K, slice columns]
        const std::size_t n = slice.columns(l);
        gemm(runtime, std::size_t(l.filters), n, k, 1.0f, {weight, k}, {col, col_ld}, 0.0f, slice.columns_of(cnhw, l),
             cnhw_ld, "Conv2D forward");
    });
    runtime.run_3d(conv2d_output_kernel, std::size_t(l.filters), std::size_t(l.batch), 1, l.batch, l.filters,
                   static_cast<int>(l.plane()), kind, slope, cnhw, static_cast<int>(cnhw_ld), bias, y);
}

void conv2d_backward(Runtime& runtime, const model::Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                     const Tensor& dy, const Tensor& dx, GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                     const Tensor& workspace, ConvPlan plan, const std::optional<FusedActivation>& activation,
                     const Tensor& y) {
    plan.method = resolved(runtime, plan.method);
    const Layout l = checked_layout(runtime, geometry, x, weight, dbias, workspace, plan, "Conv2D backward", "dbias");
    require_shape(dy, Shape{l.batch, l.filters, l.rows.out, l.cols.out}, "Conv2D backward", "dy", x.shape);
    require_shape(dweight, weight.shape, "Conv2D backward", "dweight", x.shape);
    if (dx.buffer != nullptr) require_shape(dx, x.shape, "Conv2D backward", "dx", x.shape);
    require_fusable(activation, y, dy, "Conv2D backward");
    if (plan.method == ConvMethod::own) {
        // The own kernels read dy in place, so it becomes the gradient before the activation first.
        if (activation) activation_gradient_from_output(runtime, *activation, y, dy);
        split_filter_gradient(runtime, l, x, dy, partial_of(workspace, l), dweight, dbias);
        if (dx.buffer != nullptr)
            run_implicit(runtime, conv2d_backward_data_implicit_kernel, "Conv2D backward",
                         {l.tiles_n(std::size_t(l.batch) * std::size_t(l.height) * std::size_t(l.width)),
                          l.tiles_m(std::size_t(l.channels)), 1},
                         l, weight, dy, dx, static_cast<int>(dx_write == GradWrite::accumulate));
        return;
    }
    const bool kept = l.columns_kept;
    const Tensor col = columns_of(workspace, l, plan), cnhw = cnhw_of(workspace, l),
                 split = split_scratch_of(workspace, l);
    const std::size_t k = l.col_rows(), col_ld = l.col_ld(), cnhw_ld = l.cnhw_ld();
    // dy_cnhw[Cout, P] = dy * f'(y) (dy alone without an activation; y is then not read: dy stands
    // in for it), and dbias[Cout] its row sums. One work-item per channel, each in a group of its
    // own, so that every thread of a CPU takes some.
    runtime.run_groups(conv2d_gradient_to_cnhw_kernel, {std::size_t(l.filters), 1, 1}, {1, 1, 1}, l.batch, l.filters,
                       static_cast<int>(l.plane()), FusedActivation::kernel_kind(activation),
                       FusedActivation::kernel_slope(activation), activation ? y : dy, dy, cnhw,
                       static_cast<int>(cnhw_ld), dbias);
    for_each_slice(l, [&](const Slice& slice) {
        // The forward's col in the workspace may have been overwritten by layers sharing it:
        // rebuild it, unless the forward kept it.
        if (!kept) im2col(runtime, l, slice, x, col);
        // dweight[Cout, K] (+)= the slice's dy_cnhw[Cout, slice columns] * col[K, slice columns]^T
        const std::size_t n = slice.columns(l);
        const Tensor dy_slice = slice.columns_of(cnhw, l);
        gemm(runtime, std::size_t(l.filters), k, n, 1.0f, {dy_slice, cnhw_ld}, {col, col_ld, true},
             slice.first == 0 ? 0.0f : 1.0f, dweight, k, "Conv2D backward (weight gradient)", GemmMethod::automatic,
             &split);
        if (dx.buffer == nullptr) return;
        // dcol[K, slice columns] = weight[Cout, K]^T * the slice's dy_cnhw, into col (kept columns
        // too: this is their last read): the in-order queue has finished the weight gradient's
        // reads of col before this GEMM writes it.
        gemm(runtime, k, n, std::size_t(l.filters), 1.0f, {weight, k, true}, {dy_slice, cnhw_ld}, 0.0f, col, col_ld,
             "Conv2D backward (input gradient)");
        runtime.run_3d(conv2d_col2im_kernel, std::size_t(slice.count) * l.channels, 1, 1, slice.count, l.channels,
                       l.height, l.width, l.rows.out, l.cols.out, l.kernel_h, l.kernel_w, l.stride_h, l.stride_w,
                       l.rows.pad_before, l.cols.pad_before, col, static_cast<int>(col_ld), slice.samples(dx, l),
                       static_cast<int>(dx_write == GradWrite::accumulate));
    });
}

}  // namespace bps::ops
