#include "engine/ops/dropout.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/dropout.cl), named once.
const KernelId dropout_forward_kernel{"dropout", "dropout_forward"};
const KernelId dropout_backward_kernel{"dropout", "dropout_backward"};

void require_same(const Tensor& a, const Tensor& b, const char* op, const char* names) {
    if (a.shape != b.shape)
        throw std::invalid_argument(std::string(op) + ": " + names + " are " + a.shape.to_string() + " and " +
                                    b.shape.to_string());
}
}  // namespace

void dropout_forward(Runtime& runtime, float rate, std::uint32_t seed, std::uint32_t step, const Tensor& x,
                     const Tensor& y, const Tensor& mask) {
    require_same(x, y, "dropout forward", "x and y");
    require_same(x, mask, "dropout forward", "x and mask");
    const std::uint32_t threshold = model::dropout_threshold(rate);
    const float keep_scale = 1.0f / (1.0f - rate);
    runtime.run(dropout_forward_kernel, x.count(), static_cast<int>(x.count()), threshold, keep_scale, seed, step, x, y,
                mask);
}

void dropout_backward(Runtime& runtime, const Tensor& dy, const Tensor& mask, const Tensor& dx, GradWrite write) {
    // No input gradient wanted (the first layer): dx's shape may be a placeholder.
    if (dx.buffer == nullptr) return;
    require_same(dy, mask, "dropout backward", "dy and mask");
    require_same(dy, dx, "dropout backward", "dy and dx");
    runtime.run(dropout_backward_kernel, dx.count(), static_cast<int>(dx.count()), dy, mask, dx,
                static_cast<int>(write == GradWrite::accumulate));
}

}  // namespace bps::ops
