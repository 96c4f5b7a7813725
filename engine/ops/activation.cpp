#include "engine/ops/activation.h"

#include <stdexcept>

namespace bps::ops {

namespace {
void require_same(const Tensor& a, const Tensor& b, const char* what) {
    if (a.count() != b.count())
        throw std::invalid_argument(std::string("activation ") + what + ": " + a.shape.to_string() + " and " +
                                    b.shape.to_string() + " differ in size");
}
}  // namespace

void activation_forward(Runtime& runtime, Activation kind, float slope, const Tensor& x, const Tensor& y) {
    require_same(x, y, "forward");
    const int n = static_cast<int>(x.count());
    runtime.run("activation", "activation_forward", x.count(), n, static_cast<int>(kind), slope, x, y);
}

void activation_backward(Runtime& runtime, Activation kind, float slope, const Tensor& x, const Tensor& y,
                         const Tensor& dy, const Tensor& dx, GradWrite write) {
    require_same(x, y, "backward");
    require_same(x, dy, "backward");
    require_same(x, dx, "backward");
    const int n = static_cast<int>(x.count());
    runtime.run("activation", "activation_backward", x.count(), n, static_cast<int>(kind), slope, x, y, dy, dx,
                static_cast<int>(write == GradWrite::accumulate));
}

}  // namespace bps::ops
