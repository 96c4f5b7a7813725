#pragma once
// Plain C++ reference for train/optimizer.h, in float (to compare with OpenCL) or double: the update
// written exactly as the formulas in that header, one element at a time.
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "engine/train/optimizer_settings.h"

namespace bps::ref {

// SGD; `velocity` is empty when momentum is 0.
template <typename T>
void sgd_step(const train::OptimizerSettings& settings, T lr, std::span<T> param, std::span<const T> grad,
              std::span<T> velocity) {
    const T momentum = settings.momentum, wd = settings.weight_decay;
    for (std::size_t i = 0; i < param.size(); ++i) {
        const T g = grad[i] + wd * param[i];
        if (velocity.empty()) {
            param[i] -= lr * g;
            continue;
        }
        velocity[i] = momentum * velocity[i] + g;
        param[i] -= lr * (settings.nesterov ? g + momentum * velocity[i] : velocity[i]);
    }
}

// Adam (L2 weight decay in the gradient) or AdamW (decoupled), step t counting from 1.
template <typename T>
void adam_step(const train::OptimizerSettings& settings, T lr, int t, std::span<T> param, std::span<const T> grad,
               std::span<T> m, std::span<T> v) {
    const bool decoupled = settings.kind == train::OptimizerKind::adamw;
    const T b1 = settings.beta1, b2 = settings.beta2, eps = settings.epsilon, wd = settings.weight_decay;
    const T correction1 = static_cast<T>(1.0 - std::pow(static_cast<double>(settings.beta1), t));
    const T correction2 = static_cast<T>(1.0 - std::pow(static_cast<double>(settings.beta2), t));
    for (std::size_t i = 0; i < param.size(); ++i) {
        if (decoupled) param[i] -= lr * wd * param[i];
        const T g = grad[i] + (decoupled ? T(0) : wd * param[i]);
        m[i] = b1 * m[i] + (T(1) - b1) * g;
        v[i] = b2 * v[i] + (T(1) - b2) * g * g;
        param[i] -= lr * (m[i] / correction1) / (std::sqrt(v[i] / correction2) + eps);
    }
}

// Dispatches on settings.kind; `state` holds train::optimizer_state_count(settings) vectors of param's size.
template <typename T>
void optimizer_step(const train::OptimizerSettings& settings, T lr, int t, std::span<T> param, std::span<const T> grad,
                    std::vector<std::vector<T>>& state) {
    if (settings.kind == train::OptimizerKind::sgd)
        sgd_step<T>(settings, lr, param, grad, state.empty() ? std::span<T>() : std::span<T>(state[0]));
    else
        adam_step<T>(settings, lr, t, param, grad, state[0], state[1]);
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_OPTIMIZER_INSTANCES(prefix, T)                                                                        \
    prefix template void sgd_step<T>(const train::OptimizerSettings&, T, std::span<T>, std::span<const T>,            \
                                     std::span<T>);                                                                   \
    prefix template void adam_step<T>(const train::OptimizerSettings&, T, int, std::span<T>, std::span<const T>,      \
                                      std::span<T>, std::span<T>);                                                    \
    prefix template void optimizer_step<T>(const train::OptimizerSettings&, T, int, std::span<T>, std::span<const T>, \
                                           std::vector<std::vector<T>>&);
BPS_REF_OPTIMIZER_INSTANCES(extern, float)
BPS_REF_OPTIMIZER_INSTANCES(extern, double)

}  // namespace bps::ref
