#pragma once
// Fully connected layer, forward and backward: the products go through ops::gemm (CLBlast on GPUs,
// the own kernels on CPUs), the bias through kernels/dense.cl, except on CPUs, where the forward's
// product adds the bias and applies the fused activation as it stores (ops::gemm_nt_bias_activation).
//
// Tolerances (float32 against the float reference, normwise relative, see tests/engine/ops/
// test_dense.cpp): 1e-5 for y, dx, dweight and dbias. Every output is a sum of at most a few
// hundred products of values in [-1, 1]; the measured errors are below 1e-6.
#include <optional>

#include "engine/ops/activation.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

// x: N x (any C,H,W; features = x.shape.per_sample()), weight: out x in x 1 x 1,
// bias: 1 x out x 1 x 1, y: N x out x 1 x 1.  y = x * weight^T + bias, or f of that with a fused
// activation f.
void dense_forward(Runtime& runtime, const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y,
                   const std::optional<FusedActivation>& activation = std::nullopt);

// dx (N x in, any CHW of that size; buffer nullptr = skip) =|+= dy * weight;
// dweight = dy^T * x (overwritten), dbias = column sums of dy (overwritten). With a fused
// activation, y is the forward's activated output and dy first becomes dy * f'(y) in place.
void dense_backward(Runtime& runtime, const Tensor& x, const Tensor& weight, const Tensor& dy, const Tensor& dx,
                    GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                    const std::optional<FusedActivation>& activation = std::nullopt, const Tensor& y = {});

}  // namespace bps::ops
