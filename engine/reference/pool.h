#pragma once
// Plain C++ reference for ops/pool.h, in float (to compare with OpenCL) or double (for
// finite-difference checks). Backward passes scatter from each window (the obvious form); the
// OpenCL kernels gather, so the two are independent.
#include <cstddef>
#include <span>

#include "engine/tensor/layer_geometry.h"
#include "engine/tensor/shape.h"

namespace bps::ref {

// argmax: index within the input plane of each window's first maximum.
template <typename T>
void max_pool_forward(const Shape& in, const model::PoolGeometry& g, std::span<const T> x, std::span<T> y,
                      std::span<int> argmax) {
    const Shape out = model::pool_output_shape(in, g);
    for (int p = 0; p < in.n * in.c; ++p)
        for (int oh = 0; oh < out.h; ++oh)
            for (int ow = 0; ow < out.w; ++ow) {
                const std::size_t o = (std::size_t(p) * out.h + oh) * out.w + ow;
                int best = -1;
                for (int kh = 0; kh < g.size_h; ++kh)
                    for (int kw = 0; kw < g.size_w; ++kw) {
                        const int index = (oh * g.stride_h + kh) * in.w + ow * g.stride_w + kw;
                        if (best < 0 || x[p * in.plane() + index] > x[p * in.plane() + best]) best = index;
                    }
                y[o] = x[p * in.plane() + best];
                argmax[o] = best;
            }
}

// dx = the gradient of each window routed to its maximum (overwrites dx).
template <typename T>
void max_pool_backward(const Shape& in, const model::PoolGeometry& g, std::span<const T> dy,
                       std::span<const int> argmax, std::span<T> dx) {
    const Shape out = model::pool_output_shape(in, g);
    for (T& v : dx) v = T(0);
    for (int p = 0; p < in.n * in.c; ++p)
        for (std::size_t o = 0; o < out.plane(); ++o)
            dx[p * in.plane() + argmax[p * out.plane() + o]] += dy[p * out.plane() + o];
}

template <typename T>
void avg_pool_forward(const Shape& in, const model::PoolGeometry& g, std::span<const T> x, std::span<T> y) {
    const Shape out = model::pool_output_shape(in, g);
    for (int p = 0; p < in.n * in.c; ++p)
        for (int oh = 0; oh < out.h; ++oh)
            for (int ow = 0; ow < out.w; ++ow) {
                T sum = T(0);
                for (int kh = 0; kh < g.size_h; ++kh)
                    for (int kw = 0; kw < g.size_w; ++kw)
                        sum += x[p * in.plane() + (oh * g.stride_h + kh) * in.w + ow * g.stride_w + kw];
                y[(std::size_t(p) * out.h + oh) * out.w + ow] = sum / T(g.size_h * g.size_w);
            }
}

// dx = each window's gradient spread evenly over it (overwrites dx).
template <typename T>
void avg_pool_backward(const Shape& in, const model::PoolGeometry& g, std::span<const T> dy, std::span<T> dx) {
    const Shape out = model::pool_output_shape(in, g);
    for (T& v : dx) v = T(0);
    for (int p = 0; p < in.n * in.c; ++p)
        for (int oh = 0; oh < out.h; ++oh)
            for (int ow = 0; ow < out.w; ++ow) {
                const T share = dy[(std::size_t(p) * out.h + oh) * out.w + ow] / T(g.size_h * g.size_w);
                for (int kh = 0; kh < g.size_h; ++kh)
                    for (int kw = 0; kw < g.size_w; ++kw)
                        dx[p * in.plane() + (oh * g.stride_h + kh) * in.w + ow * g.stride_w + kw] += share;
            }
}

template <typename T>
void global_avg_pool_forward(const Shape& in, std::span<const T> x, std::span<T> y) {
    for (int p = 0; p < in.n * in.c; ++p) {
        T sum = T(0);
        for (std::size_t i = 0; i < in.plane(); ++i) sum += x[p * in.plane() + i];
        y[p] = sum / T(in.plane());
    }
}

template <typename T>
void global_avg_pool_backward(const Shape& in, std::span<const T> dy, std::span<T> dx) {
    for (int p = 0; p < in.n * in.c; ++p)
        for (std::size_t i = 0; i < in.plane(); ++i) dx[p * in.plane() + i] = dy[p] / T(in.plane());
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_POOL_INSTANCES(prefix, T)                                                                   \
    prefix template void max_pool_forward<T>(const Shape&, const model::PoolGeometry&, std::span<const T>,  \
                                             std::span<T>, std::span<int>);                                 \
    prefix template void max_pool_backward<T>(const Shape&, const model::PoolGeometry&, std::span<const T>, \
                                              std::span<const int>, std::span<T>);                          \
    prefix template void avg_pool_forward<T>(const Shape&, const model::PoolGeometry&, std::span<const T>,  \
                                             std::span<T>);                                                 \
    prefix template void avg_pool_backward<T>(const Shape&, const model::PoolGeometry&, std::span<const T>, \
                                              std::span<T>);                                                \
    prefix template void global_avg_pool_forward<T>(const Shape&, std::span<const T>, std::span<T>);        \
    prefix template void global_avg_pool_backward<T>(const Shape&, std::span<const T>, std::span<T>);
BPS_REF_POOL_INSTANCES(extern, float)
BPS_REF_POOL_INSTANCES(extern, double)

}  // namespace bps::ref
