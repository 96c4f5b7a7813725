#pragma once
// 2-D convolution (cross-correlation, as in Keras), forward and backward, as GEMMs over an
// unrolled column matrix (im2col) or as own kernels that read the tensors in place (ConvMethod
// below); the kernels are kernels/conv2d.cl. All scratch memory is the caller's workspace,
// planned once.
//
// Tolerances (float32 against the float reference, normwise relative, see tests/engine/ops/
// test_conv2d.cpp): 1e-5 for y, dx, dweight and dbias. Each y and dx value sums at most a few
// hundred products of values in [-1, 1], each dweight value batch x positions of them (3,920 in
// the largest test); the measured errors are below 1e-6.
#include <cstddef>
#include <optional>

#include "engine/ops/activation.h"
#include "engine/ops/runtime.h"
#include "engine/tensor/layer_geometry.h"

namespace bps::ops {

// The geometry and its output-shape maths are device-free (engine/tensor/layer_geometry.h).

// Which kernels a convolution runs. With col[K, P] the column matrix (K = Cin x kh x kw, P =
// batch x output positions), the forward is weight[Cout, K] x col, the filter gradient
// dy[Cout, P] x col^T (a skinny product: few outputs, each a sum of tens of thousands of terms)
// and the input gradient weight^T x dy folded back onto x.
//   gemm: im2col, then ops::gemm (on a CPU the own kernels of kernels/gemm.cl, elsewhere
//     CLBlast): one GEMM forward (then the bias, into NCHW); for the backward, dy in the GEMM's
//     layout with the bias gradient summed as it is copied, one GEMM for the filter gradient
//     (given scratch to split its long sums, see ops::gemm_split_scratch_values) and one for the
//     column gradient, then col2im; all of it a slice of samples at a time (ConvPlan). The rows
//     of col and of dy's copy lie ops::gemm_padded_ld apart, never a power of two. The kernels
//     around the GEMMs give each work-item a row or plane to loop over, the CPU way. The CPU
//     path: a few large products are all a CPU's cores need.
//   own: kernels/conv2d.cl's implicit GEMMs, which read x, dy and the weights in place and write
//     NCHW, so nothing the size of col is ever written: 1 kernel forward (bias included), 3
//     backward. The filter gradient splits P into chunks, one work-group per (32x32 tile,
//     chunk), then sums the chunks in order (the bias is one more column); the input gradient is
//     a transposed convolution. On GPUs this fills the device and saves col's memory.
//   automatic: own on GPUs and accelerators, gemm on CPUs (measured: docs/performance.md).
enum class ConvMethod { automatic, gemm, own };

// How a convolution runs: its method, and for the gemm method how many samples each column
// matrix holds. The gemm method unrolls the batch a slice of samples at a time, each slice's
// columns, product and fold-back done before the next, so that its workspace no longer grows
// with the batch: the whole batch's column matrix is 302 MB for cifar's conv2 at batch 256.
// samples_per_slice 0 takes as many as fit in column_budget_values (at least one).
// kept_columns: where the gemm method keeps the column matrix from the forward for the backward,
// which then builds none (its im2col is a pass over the largest tensor of the layer) and leaves
// the column gradient there, so each backward needs its forward first (and the workspace needs no
// room for the matrix: ColumnMatrix::kept); buffer nullptr to build the matrix in the workspace
// both times. Only where one slice holds the whole batch:
// conv2d_kept_columns_elements says how large, or 0 where it cannot be kept.
struct ConvPlan {
    ConvMethod method = ConvMethod::automatic;
    int samples_per_slice = 0;
    Tensor kept_columns;
    ConvPlan(ConvMethod method_ = ConvMethod::automatic, int samples = 0,  // NOLINT: a method alone is a plan
             Tensor kept = {})
        : method(method_), samples_per_slice(samples), kept_columns(kept) {}
};
// The automatic slice's column matrix holds at most this many floats (measured:
// docs/performance.md, "CPU (PoCL)"); a sample whose own column matrix is larger is a slice alone.
std::size_t column_budget_values();

// Where the gemm method's column matrix lives when the workspace is planned: in the workspace, or
// in ConvPlan::kept_columns (sized by conv2d_kept_columns_elements), in which case the workspace
// leaves it out: passed kept columns, the forward and backward need only the smaller workspace.
enum class ColumnMatrix { in_workspace, kept };

// Scratch memory (in float elements) the forward and backward need for this input with this
// method on this runtime's device; the model plans it once. ColumnMatrix::kept where the columns
// cannot be kept (conv2d_kept_columns_elements is 0) is refused with the sizes.
std::size_t conv2d_workspace_elements(const Runtime& runtime, const Shape& input, int out_channels,
                                      const model::Conv2dGeometry& geometry, ConvPlan plan = {},
                                      ColumnMatrix columns = ColumnMatrix::in_workspace);
// The size of ConvPlan::kept_columns for this input (at most this batch): the whole batch's column
// matrix where the gemm method runs it in one slice, else 0 (the own method has no column matrix).
std::size_t conv2d_kept_columns_elements(const Runtime& runtime, const Shape& input, int out_channels,
                                         const model::Conv2dGeometry& geometry, ConvPlan plan = {});

// x: N x Cin x H x W, weight: Cout x Cin x kh x kw, bias: 1 x Cout x 1 x 1, y: conv2d_output_shape(...),
// workspace: a tensor of at least conv2d_workspace_elements (shape e.g. {1, elements, 1, 1}; with
// ColumnMatrix::kept where the plan has kept columns).
// With a fused activation f, y = f(the convolution + bias), applied where the bias is added.
void conv2d_forward(Runtime& runtime, const model::Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                    const Tensor& bias, const Tensor& y, const Tensor& workspace, ConvPlan plan = {},
                    const std::optional<FusedActivation>& activation = std::nullopt);

// dx (buffer nullptr = skip) =|+= the input gradient; dweight and dbias are overwritten. The
// workspace's contents from the forward pass are not needed (other layers may share it); the plan's
// kept columns are, when it has them (the forward on the same x must have filled them). With a
// fused activation, y is the forward's activated output, and the gradients are those of dy *
// f'(y): the gemm method applies f' as it copies dy into the GEMMs' layout (dy is left as it is),
// the own method first multiplies dy by it in place.
void conv2d_backward(Runtime& runtime, const model::Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                     const Tensor& dy, const Tensor& dx, GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                     const Tensor& workspace, ConvPlan plan = {},
                     const std::optional<FusedActivation>& activation = std::nullopt, const Tensor& y = {});

}  // namespace bps::ops
