#pragma once
// Plain C++ reference for ops/merge.h, in float (to compare with OpenCL) or double (for
// finite-difference checks).
#include <cstddef>
#include <span>
#include <vector>

#include "engine/tensor/shape.h"

namespace bps::ref {

// y = sum of the inputs.
template <typename T>
void add_forward(const std::vector<std::span<const T>>& inputs, std::span<T> y) {
    for (std::size_t i = 0; i < y.size(); ++i) {
        T sum = 0;
        for (const auto& input : inputs) sum += input[i];
        y[i] = sum;
    }
}

// The gradient of every input of an Add is dy (overwrites dx).
template <typename T>
void add_backward(std::span<const T> dy, std::span<T> dx) {
    for (std::size_t i = 0; i < dy.size(); ++i) dx[i] = dy[i];
}

// y[n][c][h][w] along channels: the channels of input 0, then those of input 1, ...
template <typename T>
void concat_forward(const std::vector<std::span<const T>>& inputs, const std::vector<Shape>& shapes, std::span<T> y) {
    const int n = shapes.at(0).n;
    const std::size_t plane = shapes.at(0).plane();
    std::size_t out = 0;
    for (int s = 0; s < n; ++s)
        for (std::size_t part = 0; part < inputs.size(); ++part) {
            const std::size_t per_sample = static_cast<std::size_t>(shapes[part].c) * plane;
            for (std::size_t i = 0; i < per_sample; ++i) y[out++] = inputs[part][s * per_sample + i];
        }
}

// dx = the channels [channel_offset, channel_offset + dx_shape.c) of dy (overwrites dx).
template <typename T>
void concat_backward(std::span<const T> dy, const Shape& dy_shape, int channel_offset, const Shape& dx_shape,
                     std::span<T> dx) {
    const std::size_t plane = dy_shape.plane();
    std::size_t out = 0;
    for (int s = 0; s < dy_shape.n; ++s)
        for (int c = channel_offset; c < channel_offset + dx_shape.c; ++c)
            for (std::size_t i = 0; i < plane; ++i)
                dx[out++] = dy[(static_cast<std::size_t>(s) * dy_shape.c + static_cast<std::size_t>(c)) * plane + i];
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_MERGE_INSTANCES(prefix, T)                                                                    \
    prefix template void add_forward<T>(const std::vector<std::span<const T>>&, std::span<T>);                \
    prefix template void add_backward<T>(std::span<const T>, std::span<T>);                                   \
    prefix template void concat_forward<T>(const std::vector<std::span<const T>>&, const std::vector<Shape>&, \
                                           std::span<T>);                                                     \
    prefix template void concat_backward<T>(std::span<const T>, const Shape&, int, const Shape&, std::span<T>);
BPS_REF_MERGE_INSTANCES(extern, float)
BPS_REF_MERGE_INSTANCES(extern, double)

}  // namespace bps::ref
