#pragma once
// Element-wise activations, forward and backward.
//
// Tolerance against engine/reference/activation.h (float32, normwise relative error): 1e-6 for
// y and dx; exp and tanh in OpenCL C may differ from the C++ library by a few ulp.
#include <optional>

#include "engine/ops/runtime.h"
#include "engine/tensor/layer_geometry.h"

namespace bps::ops {

// y = f(x). `slope` is LeakyReLU's slope for x < 0 (ignored by the others). x and y may be the
// same tensor (in place).
void activation_forward(Runtime& runtime, model::Activation kind, float slope, const Tensor& x, const Tensor& y);

// dx (=|+=) dy * f'(x), computed from x (ReLU, LeakyReLU) or y (Sigmoid, Tanh).
void activation_backward(Runtime& runtime, model::Activation kind, float slope, const Tensor& x, const Tensor& y,
                         const Tensor& dy, const Tensor& dx, GradWrite write);

// An activation a Dense or Conv2D layer applies to its own output, inside its own kernels: the
// network fuses an Activation layer into the layer before it when that layer's output is read by
// nothing else, which saves a pass over the output and a launch each way, and the memory of the
// output before the activation. The forward writes y = f(output); the backward reads that y and
// dy, and works with dy * f'(output) from then on.
struct FusedActivation {
    model::Activation kind = model::Activation::relu;
    float slope = 0.0f;  // LeakyReLU's
    // kernels/activation_functions.clh's kind argument (FUSED_NONE, -1, for none).
    static int kernel_kind(const std::optional<FusedActivation>& activation) {
        return activation ? static_cast<int>(activation->kind) : -1;
    }
    static float kernel_slope(const std::optional<FusedActivation>& activation) {
        return activation ? activation->slope : 0.0f;
    }
};

// Whether f'(x) follows from y = f(x) alone, so that the activation can be fused: every one but a
// LeakyReLU with a negative slope (whose y > 0 also for some x < 0).
bool derivative_from_output(model::Activation kind, float slope);

// Refuses (std::invalid_argument, naming `op`) an activation whose derivative y does not determine,
// and a y whose size differs from dy's.
void require_fusable(const std::optional<FusedActivation>& activation, const Tensor& y, const Tensor& dy,
                     const char* op);

// dy = dy * f'(x) in place, computed from y = f(x): the backward of a fused activation, for a
// layer whose kernels then read dy in place.
void activation_gradient_from_output(Runtime& runtime, const FusedActivation& activation, const Tensor& y,
                                     const Tensor& dy);

}  // namespace bps::ops
