#include "engine/ops/merge.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/merge.cl), named once.
const KernelId add_two_kernel{"merge", "add_two"};
const KernelId add_into_kernel{"merge", "add_into"};
const KernelId pass_gradient_kernel{"merge", "pass_gradient"};
const KernelId concat_forward_kernel{"merge", "concat_forward"};
const KernelId concat_backward_kernel{"merge", "concat_backward"};

bool same_memory(const Tensor& a, const Tensor& b) {
    return a.buffer == b.buffer && a.offset == b.offset;
}

std::string shapes_of(std::span<const Tensor> inputs) {
    std::string text;
    for (const Tensor& input : inputs) text += (text.empty() ? "" : ", ") + input.shape.to_string();
    return text;
}

int int_of(std::size_t value) {
    return static_cast<int>(value);
}
}  // namespace

void add_forward(Runtime& runtime, std::span<const Tensor> inputs, const Tensor& y) {
    if (inputs.size() < 2)
        throw std::invalid_argument("Add forward: needs two or more inputs, got " + std::to_string(inputs.size()));
    for (const Tensor& input : inputs)
        if (!(input.shape == y.shape))
            throw std::invalid_argument("Add forward: inputs " + shapes_of(inputs) + " and output " +
                                        y.shape.to_string() + " must all have the same shape");
    // The first launch overwrites y, so when y is one of the inputs that input must be read there.
    std::size_t first = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (same_memory(inputs[i], y)) first = i;
    const std::size_t second = first == 0 ? 1 : 0;
    const int n = int_of(y.count());
    runtime.run(add_two_kernel, y.count(), n, inputs[first], inputs[second], y);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (i != first && i != second) runtime.run(add_into_kernel, y.count(), n, inputs[i], y);
}

void pass_gradient(Runtime& runtime, const Tensor& dy, const Tensor& dx, GradWrite write) {
    if (dx.buffer == nullptr) return;
    if (dy.count() != dx.count())
        throw std::invalid_argument("Add backward: output gradient " + dy.shape.to_string() + " and input gradient " +
                                    dx.shape.to_string() + " differ in size");
    runtime.run(pass_gradient_kernel, dx.count(), int_of(dx.count()), dy, dx,
                static_cast<int>(write == GradWrite::accumulate));
}

void concat_forward(Runtime& runtime, std::span<const Tensor> inputs, const Tensor& y) {
    int channels = 0;
    bool fits = !inputs.empty();
    for (const Tensor& input : inputs) {
        channels += input.shape.c;
        fits = fits && input.shape.n == y.shape.n && input.shape.h == y.shape.h && input.shape.w == y.shape.w;
    }
    if (!fits || channels != y.shape.c)
        throw std::invalid_argument("Concatenate forward: inputs " + shapes_of(inputs) +
                                    " do not concatenate along "
                                    "channels into " +
                                    y.shape.to_string());
    const std::size_t plane = y.shape.plane();
    int offset = 0;
    for (const Tensor& input : inputs) {
        runtime.run(concat_forward_kernel, input.count(), int_of(input.count()), int_of(input.shape.per_sample()),
                    int_of(y.shape.per_sample()), int_of(static_cast<std::size_t>(offset) * plane), input, y);
        offset += input.shape.c;
    }
}

void concat_backward(Runtime& runtime, const Tensor& dy, int channel_offset, const Tensor& dx, GradWrite write) {
    if (dx.buffer == nullptr) return;
    if (dx.shape.n != dy.shape.n || dx.shape.h != dy.shape.h || dx.shape.w != dy.shape.w || channel_offset < 0 ||
        channel_offset + dx.shape.c > dy.shape.c)
        throw std::invalid_argument("Concatenate backward: input gradient " + dx.shape.to_string() + " at channel " +
                                    std::to_string(channel_offset) + " is not part of " + dy.shape.to_string());
    runtime.run(concat_backward_kernel, dx.count(), int_of(dx.count()), int_of(dx.shape.per_sample()),
                int_of(dy.shape.per_sample()), int_of(static_cast<std::size_t>(channel_offset) * dy.shape.plane()), dy,
                dx, static_cast<int>(write == GradWrite::accumulate));
}

}  // namespace bps::ops
