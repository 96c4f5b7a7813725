#pragma once
// Element-wise activations, forward and backward.
//
// Tolerance against engine/reference/activation.h (float32, normwise relative error): 1e-6 for
// y and dx; exp and tanh in OpenCL C may differ from the C++ library by a few ulp.
#include "engine/model/layer_geometry.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

using model::Activation;  // device-free, in engine/model/layer_geometry.h

// y = f(x). `slope` is LeakyReLU's slope for x < 0 (ignored by the others). x and y may be the
// same tensor (in place).
void activation_forward(Runtime& runtime, Activation kind, float slope, const Tensor& x, const Tensor& y);

// dx (=|+=) dy * f'(x), computed from x (ReLU, LeakyReLU) or y (Sigmoid, Tanh).
void activation_backward(Runtime& runtime, Activation kind, float slope, const Tensor& x, const Tensor& y,
                         const Tensor& dy, const Tensor& dx, GradWrite write);

}  // namespace bps::ops
