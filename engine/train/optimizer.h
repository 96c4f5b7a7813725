#pragma once
// Parameter updates on the device, with PyTorch's semantics (reference: reference/optimizer.h).
// Tolerance: device against the float reference within 1e-6 normwise relative error over several steps
// (each element's update is a handful of float operations; only FMA contraction and the host-side
// bias corrections differ).
#include <span>

#include "engine/ops/runtime.h"
#include "engine/train/optimizer_settings.h"

namespace bps::train {

// One in-place update of `param` from `grad`:
// SGD: g = grad + wd*param; v = momentum*v + g; param -= lr * (nesterov ? g + momentum*v : v)
//      (momentum 0: param -= lr*g)
// Adam: g = grad + wd*param; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
//       param -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps)
// AdamW: param -= lr*wd*param first (decoupled), then Adam without the wd term.
// `learning_rate` is this step's rate (from the schedule, settings.learning_rate is not read); `step` counts
// from 1. Throws std::invalid_argument for mismatched shapes, a wrong state count or step < 1.
void optimizer_step(ops::Runtime& runtime, const OptimizerSettings& settings, float learning_rate, int step,
                    const Tensor& param, const Tensor& grad, std::span<const Tensor> state);

}  // namespace bps::train
