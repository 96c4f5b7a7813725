#pragma once
// Plain C++ reference for ops/activation.h, in float (to compare with OpenCL) or double (for
// finite-difference checks).
#include <cmath>
#include <cstddef>
#include <span>

#include "engine/tensor/layer_geometry.h"

namespace bps::ref {

template <typename T>
T activate(model::Activation kind, T slope, T x) {
    switch (kind) {
        case model::Activation::relu:
            return x > T(0) ? x : T(0);
        case model::Activation::leaky_relu:
            return x > T(0) ? x : slope * x;
        case model::Activation::sigmoid:
            return T(1) / (T(1) + std::exp(-x));
        case model::Activation::tanh:
            return std::tanh(x);
    }
    return x;
}

template <typename T>
void activation_forward(model::Activation kind, T slope, std::span<const T> x, std::span<T> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = activate(kind, slope, x[i]);
}

// dx = dy * f'(x) (overwrites dx).
template <typename T>
void activation_backward(model::Activation kind, T slope, std::span<const T> x, std::span<const T> y,
                         std::span<const T> dy, std::span<T> dx) {
    for (std::size_t i = 0; i < x.size(); ++i) {
        T d = T(1);
        switch (kind) {
            case model::Activation::relu:
                d = x[i] > T(0) ? T(1) : T(0);
                break;
            case model::Activation::leaky_relu:
                d = x[i] > T(0) ? T(1) : slope;
                break;
            case model::Activation::sigmoid:
                d = y[i] * (T(1) - y[i]);
                break;
            case model::Activation::tanh:
                d = T(1) - y[i] * y[i];
                break;
        }
        dx[i] = dy[i] * d;
    }
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_ACTIVATION_INSTANCES(prefix, T)                                                               \
    prefix template void activation_forward<T>(model::Activation, T, std::span<const T>, std::span<T>);       \
    prefix template void activation_backward<T>(model::Activation, T, std::span<const T>, std::span<const T>, \
                                                std::span<const T>, std::span<T>);
BPS_REF_ACTIVATION_INSTANCES(extern, float)
BPS_REF_ACTIVATION_INSTANCES(extern, double)

}  // namespace bps::ref
