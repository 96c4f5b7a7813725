#pragma once
// Layers that merge branches: Add (element-wise sum) and Concatenate (along channels).
//
// Tolerances against ref:: in float (normwise relative error): concatenation and its backward
// and pass_gradient overwrite are copies, so exact; Add 1e-6 (a sum of a few terms, a few ulp
// where the terms cancel); accumulated gradients 1e-6 relative to the larger of the terms.
#include <span>

#include "engine/ops/runtime.h"

namespace bps::ops {

// y = sum of the inputs (two or more, all of y's shape). y may be one of the inputs (in place).
void add_forward(Runtime& runtime, std::span<const Tensor> inputs, const Tensor& y);
// The gradient of an Add reaches every input unchanged: dx =|+= dy. Nothing is done when dx
// has no buffer (no input gradient needed).
void pass_gradient(Runtime& runtime, const Tensor& dy, const Tensor& dx, GradWrite write);
// Concatenation along channels: inputs N x C_i x H x W (same N, H, W), y: N x sum(C_i) x H x W.
void concat_forward(Runtime& runtime, std::span<const Tensor> inputs, const Tensor& y);
// dx (N x C_i x H x W) =|+= the channels [channel_offset, channel_offset + C_i) of dy. Nothing
// is done when dx has no buffer.
void concat_backward(Runtime& runtime, const Tensor& dy, int channel_offset, const Tensor& dx, GradWrite write);

}  // namespace bps::ops
