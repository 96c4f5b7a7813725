#pragma once
// 2-D convolution (cross-correlation, as in Keras), forward and backward. The batch is unrolled
// into one column matrix (im2col) so the input gradient is one CLBlast GEMM; the forward and the
// filter gradient are CLBlast GEMMs or own kernels (ConvMethod below); the layout changes, bias
// and col2im are kernels/conv2d.cl. All scratch memory is the caller's workspace, planned once.
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

// Which kernels a convolution runs. The filter gradient, dweight[Cout, K] = dy[Cout, P] x
// col[K, P]^T with P = batch x output positions, is a skinny product: few outputs, each a sum of
// tens of thousands of terms.
//   gemm: im2col, then CLBlast: one GEMM forward (and a bias kernel), and one GEMM for the
//     filter gradient, whose few output tiles walk all of P serially. Fast on a CPU, where a
//     few work-groups are all the cores.
//   own: kernels/conv2d.cl's own kernels. The forward is an implicit GEMM that reads x in place
//     and writes y in NCHW with its bias (no column matrix). The filter gradient splits P
//     into chunks, one work-group per (32x32 tile, chunk), then sums the chunks; the bias is one
//     more column. On GPUs this fills the device.
//   automatic: own on GPUs and accelerators, gemm on CPUs (measured: docs/performance.md).
// The input gradient is CLBlast's GEMM and col2im either way.
enum class ConvMethod { automatic, gemm, own };

// x: N x Cin x H x W, weight: Cout x Cin x kh x kw, bias: 1 x Cout x 1 x 1, y: conv2d_output_shape(...),
// workspace: a tensor of at least conv2d_workspace_elements (shape e.g. {1, elements, 1, 1}).
void conv2d_forward(Runtime& runtime, const Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                    const Tensor& bias, const Tensor& y, const Tensor& workspace,
                    ConvMethod method = ConvMethod::automatic);

// dx (buffer nullptr = skip) =|+= the input gradient; dweight and dbias are overwritten. The
// workspace's contents from the forward pass are not needed (other layers may share it).
void conv2d_backward(Runtime& runtime, const Conv2dGeometry& geometry, const Tensor& x, const Tensor& weight,
                     const Tensor& dy, const Tensor& dx, GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                     const Tensor& workspace, ConvMethod method = ConvMethod::automatic);

}  // namespace bps::ops
