#include "engine/train/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bps::train {

namespace {
// The kernels this file launches (kernels/optimizer.cl), named once.
const ops::KernelId sgd_step_kernel{"optimizer", "sgd_step"};
const ops::KernelId sgd_momentum_step_kernel{"optimizer", "sgd_momentum_step"};
const ops::KernelId adam_step_kernel{"optimizer", "adam_step"};

const char* kind_name(OptimizerKind kind) {
    switch (kind) {
        case OptimizerKind::sgd:
            return "SGD";
        case OptimizerKind::adam:
            return "Adam";
        case OptimizerKind::adamw:
            return "AdamW";
    }
    return "optimizer";
}

void require_same_shape(const char* op, const Tensor& param, const Tensor& other, const char* what) {
    if (other.shape != param.shape)
        throw std::invalid_argument(std::string(op) + " step: parameter " + param.shape.to_string() + " and " + what +
                                    " " + other.shape.to_string() + " differ");
}

}  // namespace

bool learning_rate_accepted(double rate) {
    return rate > 0 && rate <= max_learning_rate && std::isnormal(static_cast<float>(rate));
}

int optimizer_state_count(const OptimizerSettings& settings) {
    switch (settings.kind) {
        case OptimizerKind::sgd:
            return settings.momentum == 0.0f ? 0 : 1;
        case OptimizerKind::adam:
        case OptimizerKind::adamw:
            return 2;
    }
    return 0;
}

void optimizer_step(ops::Runtime& runtime, const OptimizerSettings& settings, float learning_rate, int step,
                    const Tensor& param, const Tensor& grad, std::span<const Tensor> state) {
    const char* op = kind_name(settings.kind);
    require_same_shape(op, param, grad, "gradient");
    const int expected = optimizer_state_count(settings);
    if (static_cast<int>(state.size()) != expected)
        throw std::invalid_argument(std::string(op) + " step: " + std::to_string(state.size()) +
                                    " state tensors given for " + std::to_string(expected) + " needed");
    for (const Tensor& s : state) require_same_shape(op, param, s, "state");
    if (step < 1) throw std::invalid_argument(std::string(op) + " step: step " + std::to_string(step) + " below 1");

    const int n = static_cast<int>(param.count());
    const std::size_t items = param.count();
    if (settings.kind == OptimizerKind::sgd) {
        if (expected == 0)
            runtime.run(sgd_step_kernel, items, n, learning_rate, settings.weight_decay, param, grad);
        else
            runtime.run(sgd_momentum_step_kernel, items, n, learning_rate, settings.momentum, settings.weight_decay,
                        static_cast<int>(settings.nesterov), param, grad, state[0]);
        return;
    }
    // Bias corrections in double on the host: b^t for large t is where float would lose digits. Folding them
    // into the rate and the second moment's scale leaves the kernel two float factors.
    const double correction1 = 1.0 - std::pow(static_cast<double>(settings.beta1), step);
    const double correction2 = 1.0 - std::pow(static_cast<double>(settings.beta2), step);
    const auto step_rate = static_cast<float>(learning_rate / correction1);
    const auto v_scale = static_cast<float>(1.0 / std::sqrt(correction2));
    const bool decoupled = settings.kind == OptimizerKind::adamw;
    const float l2 = decoupled ? 0.0f : settings.weight_decay;
    const float shrink =
        decoupled ? static_cast<float>(1.0 - static_cast<double>(learning_rate) * settings.weight_decay) : 1.0f;
    runtime.run(adam_step_kernel, items, n, step_rate, v_scale, settings.beta1, settings.beta2, settings.epsilon, l2,
                shrink, param, grad, state[0], state[1]);
}

}  // namespace bps::train
