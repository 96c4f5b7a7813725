#pragma once
// Plain C++ reference for ops/dense.h, in float (to compare with OpenCL) or double (for
// finite-difference checks). x is N x in (any C,H,W), weight out x in, bias out, y N x out.
#include <cstddef>
#include <span>

#include "engine/tensor/shape.h"

namespace bps::ref {

template <typename T>
void dense_forward(const Shape& x_shape, const Shape& weight_shape, std::span<const T> x, std::span<const T> weight,
                   std::span<const T> bias, std::span<T> y) {
    const std::size_t batch = std::size_t(x_shape.n), in = x_shape.per_sample(), out = std::size_t(weight_shape.n);
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t o = 0; o < out; ++o) {
            T sum = bias[o];
            for (std::size_t i = 0; i < in; ++i) sum += x[b * in + i] * weight[o * in + i];
            y[b * out + o] = sum;
        }
}

// Overwrites dx, dweight and dbias.
template <typename T>
void dense_backward(const Shape& x_shape, const Shape& weight_shape, std::span<const T> x, std::span<const T> weight,
                    std::span<const T> dy, std::span<T> dx, std::span<T> dweight, std::span<T> dbias) {
    const std::size_t batch = std::size_t(x_shape.n), in = x_shape.per_sample(), out = std::size_t(weight_shape.n);
    for (std::size_t i = 0; i < batch * in; ++i) dx[i] = T(0);
    for (std::size_t i = 0; i < out * in; ++i) dweight[i] = T(0);
    for (std::size_t o = 0; o < out; ++o) dbias[o] = T(0);
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t o = 0; o < out; ++o) {
            const T g = dy[b * out + o];
            dbias[o] += g;
            for (std::size_t i = 0; i < in; ++i) {
                dx[b * in + i] += g * weight[o * in + i];
                dweight[o * in + i] += g * x[b * in + i];
            }
        }
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_DENSE_INSTANCES(prefix, T)                                                                     \
    prefix template void dense_forward<T>(const Shape&, const Shape&, std::span<const T>, std::span<const T>,  \
                                          std::span<const T>, std::span<T>);                                   \
    prefix template void dense_backward<T>(const Shape&, const Shape&, std::span<const T>, std::span<const T>, \
                                           std::span<const T>, std::span<T>, std::span<T>, std::span<T>);
BPS_REF_DENSE_INSTANCES(extern, float)
BPS_REF_DENSE_INSTANCES(extern, double)

}  // namespace bps::ref
