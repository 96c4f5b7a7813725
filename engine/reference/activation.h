#pragma once
// Plain C++ reference for ops/activation.h, in float (to compare with OpenCL) or double (for
// finite-difference checks).
#include <cmath>
#include <cstddef>
#include <span>

#include "engine/ops/activation.h"

namespace bps::ref {

template <typename T>
T activate(ops::Activation kind, T slope, T x) {
    switch (kind) {
        case ops::Activation::relu:
            return x > T(0) ? x : T(0);
        case ops::Activation::leaky_relu:
            return x > T(0) ? x : slope * x;
        case ops::Activation::sigmoid:
            return T(1) / (T(1) + std::exp(-x));
        case ops::Activation::tanh:
            return std::tanh(x);
    }
    return x;
}

template <typename T>
void activation_forward(ops::Activation kind, T slope, std::span<const T> x, std::span<T> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = activate(kind, slope, x[i]);
}

// dx = dy * f'(x) (overwrites dx).
template <typename T>
void activation_backward(ops::Activation kind, T slope, std::span<const T> x, std::span<const T> y,
                         std::span<const T> dy, std::span<T> dx) {
    for (std::size_t i = 0; i < x.size(); ++i) {
        T d = T(1);
        switch (kind) {
            case ops::Activation::relu:
                d = x[i] > T(0) ? T(1) : T(0);
                break;
            case ops::Activation::leaky_relu:
                d = x[i] > T(0) ? T(1) : slope;
                break;
            case ops::Activation::sigmoid:
                d = y[i] * (T(1) - y[i]);
                break;
            case ops::Activation::tanh:
                d = T(1) - y[i] * y[i];
                break;
        }
        dx[i] = dy[i] * d;
    }
}

}  // namespace bps::ref
