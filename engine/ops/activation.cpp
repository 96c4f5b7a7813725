#include "engine/ops/activation.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/activation.cl), named once.
const KernelId activation_forward_kernel{"activation", "activation_forward"};
const KernelId activation_backward_kernel{"activation", "activation_backward"};
const KernelId activation_gradient_from_output_kernel{"activation", "activation_gradient_from_output"};

void require_same(const Tensor& a, const Tensor& b, const char* what) {
    if (a.count() != b.count())
        throw std::invalid_argument(std::string("activation ") + what + ": " + a.shape.to_string() + " and " +
                                    b.shape.to_string() + " differ in size");
}
}  // namespace

void activation_forward(Runtime& runtime, model::Activation kind, float slope, const Tensor& x, const Tensor& y) {
    require_same(x, y, "forward");
    const int n = static_cast<int>(x.count());
    runtime.run(activation_forward_kernel, x.count(), n, static_cast<int>(kind), slope, x, y);
}

void activation_backward(Runtime& runtime, model::Activation kind, float slope, const Tensor& x, const Tensor& y,
                         const Tensor& dy, const Tensor& dx, GradWrite write) {
    require_same(x, y, "backward");
    require_same(x, dy, "backward");
    require_same(x, dx, "backward");
    const int n = static_cast<int>(x.count());
    runtime.run(activation_backward_kernel, x.count(), n, static_cast<int>(kind), slope, x, y, dy, dx,
                static_cast<int>(write == GradWrite::accumulate));
}

bool derivative_from_output(model::Activation kind, float slope) {
    return kind != model::Activation::leaky_relu || slope >= 0.0f;
}

void require_fusable(const std::optional<FusedActivation>& activation, const Tensor& y, const Tensor& dy,
                     const char* op) {
    if (!activation) return;
    if (!derivative_from_output(activation->kind, activation->slope)) {
        std::ostringstream slope;
        slope << activation->slope;
        throw std::invalid_argument(std::string(op) + ": a LeakyReLU with the negative slope " + slope.str() +
                                    " cannot be fused into the layer (its output does not determine its derivative)");
    }
    if (y.count() != dy.count())
        throw std::invalid_argument(std::string(op) + ": the activated output " + y.shape.to_string() + " and dy " +
                                    dy.shape.to_string() + " differ in size");
}

void activation_gradient_from_output(Runtime& runtime, const FusedActivation& activation, const Tensor& y,
                                     const Tensor& dy) {
    require_fusable(activation, y, dy, "activation backward");
    runtime.run(activation_gradient_from_output_kernel, dy.count(), static_cast<int>(dy.count()),
                static_cast<int>(activation.kind), activation.slope, y, dy);
}

}  // namespace bps::ops
