#pragma once
// Training-mode inverted dropout. Evaluation mode is the identity (the model skips the op).
//
// The random numbers come from dropout_random(seed, step, i) (a counter-based hash, see
// kernels/dropout.cl and engine/reference/dropout.h), so the same seed and step give the same mask
// on every device and no random state lives on the device.
//
// Tolerances against engine/reference/dropout.h: mask, y and overwritten dx exact (the mask is
// bit for bit the reference's, and y and dx are one float multiplication each); accumulated dx
// 1e-7 (a compiler may fuse the multiply and the add).
#include <cstdint>

#include "engine/ops/runtime.h"
#include "engine/tensor/layer_geometry.h"

namespace bps::ops {

// mask[i] = 0 with probability `rate`, else 1 / (1 - rate); y = x * mask.
void dropout_forward(Runtime& runtime, float rate, std::uint32_t seed, std::uint32_t step, const Tensor& x,
                     const Tensor& y, const Tensor& mask);
// dx =|+= dy * mask. dx.buffer == nullptr: nothing to do.
void dropout_backward(Runtime& runtime, const Tensor& dy, const Tensor& mask, const Tensor& dx, GradWrite write);

}  // namespace bps::ops
