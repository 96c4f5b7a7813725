#pragma once
// 2-D convolution (cross-correlation, as in Keras), forward and backward. The batch is unrolled
// into one column matrix (im2col) so the forward and the input gradient are each one CLBlast
// GEMM; the filter gradient is a GEMM or a split reduction (FilterGradient below); the layout
// changes, bias and col2im are kernels/conv2d.cl. All scratch memory is the caller's workspace,
// planned once.
//
// Tolerances (float32 against the float reference, normwise relative, see tests/engine/ops/
// test_conv2d.cpp): 1e-5 for y, dx, dweight and dbias. Each y and dx value sums at most a few
// hundred products of values in [-1, 1], each dweight value batch x positions of them (3,920 in
// the largest test); the measured errors are below 1e-6.
#include <cstddef>

#include "engine/model/layer_geometry.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

// The geometry and its output-shape maths are device-free (engine/model/layer_geometry.h).
using model::conv2d_output_shape;
using model::Conv2dGeometry;
using model::Padding;

// Scratch memory (in float elements) the forward and backward need for this input; the model plans it once.
std::size_t conv2d_workspace_elements(const Shape& input, int out_channels, const Conv2dGeometry& geometry);

// How the backward computes the filter and bias gradients, dweight[Cout, K] = dy[Cout, P] *
// col[K, P]^T with P = batch * output positions: a skinny product whose few outputs each sum tens
// of thousands of terms.
//   gemm: one CLBlast GEMM, and one work-item per filter for the bias. CLBlast tiles the output,
//     so a few work-groups walk all of P serially: fast on a CPU, where that is all the cores.
//   split: kernels/conv2d.cl splits P into chunks, one work-group per (32x32 tile, chunk), then
//     sums the chunks; the bias is one more column. On GPUs this fills the device.
//   automatic: split on GPUs and accelerators, gemm on CPUs (measured: docs/performance.md).
enum class FilterGradient { automatic, gemm, split };

// x: N x Cin x H x W, weight: Cout x Cin x kh x kw, bias: 1 x Cout x 1 x 1, y: conv2d_output_shape(...),
// workspace: a tensor of at least conv2d_workspace_elements (shape e.g. {1, elements, 1, 1}).
void conv2d_forward(Runtime& runtime, const Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                    const Tensor& bias, const Tensor& y, const Tensor& workspace);

// dx (buffer nullptr = skip) =|+= the input gradient; dweight and dbias are overwritten. The
// workspace's contents from the forward pass are not needed (other layers may share it).
void conv2d_backward(Runtime& runtime, const Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                     const Tensor& dy, const Tensor& dx, GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                     const Tensor& workspace, FilterGradient method = FilterGradient::automatic);

}  // namespace bps::ops
