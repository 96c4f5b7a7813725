#pragma once
// Plain C++ reference for ops/dropout.h. dropout_random is the kernel's hash (kernels/dropout.cl)
// written again in C++: the two must stay identical, bit for bit.
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/tensor/layer_geometry.h"

namespace bps::ref {

// The murmur3 32-bit finaliser.
inline std::uint32_t dropout_mix(std::uint32_t h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

inline std::uint32_t dropout_random(std::uint32_t seed, std::uint32_t step, std::uint32_t index) {
    std::uint32_t h = dropout_mix(seed ^ 0x9E3779B9u);
    h = dropout_mix(h ^ step);
    return dropout_mix(h ^ index);
}

// mask[i] = 0 or 1 / (1 - rate) (computed in float, as the device does); y = x * mask.
template <typename T>
void dropout_forward(float rate, std::uint32_t seed, std::uint32_t step, std::span<const T> x, std::span<T> y,
                     std::span<T> mask) {
    const std::uint32_t threshold = model::dropout_threshold(rate);
    const float keep_scale = 1.0f / (1.0f - rate);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const bool dropped = dropout_random(seed, step, static_cast<std::uint32_t>(i)) < threshold;
        mask[i] = dropped ? T(0) : T(keep_scale);
        y[i] = x[i] * mask[i];
    }
}

// dx = dy * mask (overwrites dx).
template <typename T>
void dropout_backward(std::span<const T> dy, std::span<const T> mask, std::span<T> dx) {
    for (std::size_t i = 0; i < dy.size(); ++i) dx[i] = dy[i] * mask[i];
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_DROPOUT_INSTANCES(prefix, T)                                                                       \
    prefix template void dropout_forward<T>(float, std::uint32_t, std::uint32_t, std::span<const T>, std::span<T>, \
                                            std::span<T>);                                                         \
    prefix template void dropout_backward<T>(std::span<const T>, std::span<const T>, std::span<T>);
BPS_REF_DROPOUT_INSTANCES(extern, float)
BPS_REF_DROPOUT_INSTANCES(extern, double)

}  // namespace bps::ref
