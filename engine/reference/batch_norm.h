#pragma once
// Plain C++ reference for ops/batch_norm.h, in float (to compare with OpenCL) or double (for
// finite-difference checks). Channel c of an NCHW tensor: x[(n * C + c) * H * W + p].
#include <cmath>
#include <cstddef>
#include <span>

#include "engine/tensor/shape.h"

namespace bps::ref {

namespace detail {
inline std::size_t bn_index(const Shape& s, int n, int c, std::size_t p) {
    return (static_cast<std::size_t>(n) * s.c + c) * s.plane() + p;
}
}  // namespace detail

template <typename T>
void batch_norm_forward_train(const Shape& s, T momentum, T epsilon, std::span<const T> x, std::span<const T> gamma,
                              std::span<const T> beta, std::span<T> y, std::span<T> saved_mean,
                              std::span<T> saved_inv_std, std::span<T> running_mean, std::span<T> running_var) {
    const std::size_t count = static_cast<std::size_t>(s.n) * s.plane();
    for (int c = 0; c < s.c; ++c) {
        T sum = T(0);
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) sum += x[detail::bn_index(s, n, c, p)];
        const T mean = sum / T(count);
        T squares = T(0);
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const T d = x[detail::bn_index(s, n, c, p)] - mean;
                squares += d * d;
            }
        const T var = squares / T(count);
        const T inv_std = T(1) / std::sqrt(var + epsilon);
        saved_mean[c] = mean;
        saved_inv_std[c] = inv_std;
        const T unbiased = count > 1 ? var * (T(count) / T(count - 1)) : var;
        running_mean[c] = momentum * running_mean[c] + (T(1) - momentum) * mean;
        running_var[c] = momentum * running_var[c] + (T(1) - momentum) * unbiased;
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const std::size_t i = detail::bn_index(s, n, c, p);
                y[i] = gamma[c] * (x[i] - mean) * inv_std + beta[c];
            }
    }
}

template <typename T>
void batch_norm_forward_eval(const Shape& s, T epsilon, std::span<const T> x, std::span<const T> gamma,
                             std::span<const T> beta, std::span<const T> running_mean, std::span<const T> running_var,
                             std::span<T> y) {
    for (int c = 0; c < s.c; ++c) {
        const T inv_std = T(1) / std::sqrt(running_var[c] + epsilon);
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const std::size_t i = detail::bn_index(s, n, c, p);
                y[i] = gamma[c] * (x[i] - running_mean[c]) * inv_std + beta[c];
            }
    }
}

// The input gradient of the evaluation-mode forward: overwrites dx with dy * gamma * inv_std.
template <typename T>
void batch_norm_backward_eval(const Shape& s, T epsilon, std::span<const T> gamma, std::span<const T> running_var,
                              std::span<const T> dy, std::span<T> dx) {
    for (int c = 0; c < s.c; ++c) {
        const T scale = gamma[c] / std::sqrt(running_var[c] + epsilon);
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const std::size_t i = detail::bn_index(s, n, c, p);
                dx[i] = dy[i] * scale;
            }
    }
}

// The gradient of the training-mode forward (batch statistics depend on x): overwrites dx,
// dgamma and dbeta.
template <typename T>
void batch_norm_backward(const Shape& s, std::span<const T> x, std::span<const T> gamma, std::span<const T> saved_mean,
                         std::span<const T> saved_inv_std, std::span<const T> dy, std::span<T> dx, std::span<T> dgamma,
                         std::span<T> dbeta) {
    const T count = T(static_cast<std::size_t>(s.n) * s.plane());
    for (int c = 0; c < s.c; ++c) {
        T sum_dy = T(0), sum_dy_xhat = T(0);
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const std::size_t i = detail::bn_index(s, n, c, p);
                sum_dy += dy[i];
                sum_dy_xhat += dy[i] * (x[i] - saved_mean[c]) * saved_inv_std[c];
            }
        dbeta[c] = sum_dy;
        dgamma[c] = sum_dy_xhat;
        for (int n = 0; n < s.n; ++n)
            for (std::size_t p = 0; p < s.plane(); ++p) {
                const std::size_t i = detail::bn_index(s, n, c, p);
                const T xhat = (x[i] - saved_mean[c]) * saved_inv_std[c];
                dx[i] = gamma[c] * saved_inv_std[c] * (dy[i] - sum_dy / count - xhat * sum_dy_xhat / count);
            }
    }
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_BATCH_NORM_INSTANCES(prefix, T)                                                                    \
    prefix template void batch_norm_forward_train<T>(const Shape&, T, T, std::span<const T>, std::span<const T>,   \
                                                     std::span<const T>, std::span<T>, std::span<T>, std::span<T>, \
                                                     std::span<T>, std::span<T>);                                  \
    prefix template void batch_norm_forward_eval<T>(const Shape&, T, std::span<const T>, std::span<const T>,       \
                                                    std::span<const T>, std::span<const T>, std::span<const T>,    \
                                                    std::span<T>);                                                 \
    prefix template void batch_norm_backward_eval<T>(const Shape&, T, std::span<const T>, std::span<const T>,      \
                                                     std::span<const T>, std::span<T>);                            \
    prefix template void batch_norm_backward<T>(const Shape&, std::span<const T>, std::span<const T>,              \
                                                std::span<const T>, std::span<const T>, std::span<const T>,        \
                                                std::span<T>, std::span<T>, std::span<T>);
BPS_REF_BATCH_NORM_INSTANCES(extern, float)
BPS_REF_BATCH_NORM_INSTANCES(extern, double)

}  // namespace bps::ref
