#pragma once
// Plain C++ reference for ops/conv2d.h: a direct convolution (no im2col), in float (to compare
// with OpenCL) or double (for finite-difference checks). x is N x Cin x H x W, weight
// Cout x Cin x kh x kw, bias Cout, y N x Cout x Ho x Wo.
#include <algorithm>
#include <cstddef>
#include <span>

#include "engine/tensor/layer_geometry.h"
#include "engine/tensor/shape.h"

namespace bps::ref {

// Output size and leading padding of one axis, Keras rules, computed here independently of the op.
struct Conv2dAxis {
    int out;
    int pad_before;
};

inline Conv2dAxis conv2d_axis(int in, int kernel, int stride, model::Padding padding) {
    if (padding == model::Padding::valid) return {(in - kernel) / stride + 1, 0};
    const int out = (in + stride - 1) / stride;
    return {out, std::max((out - 1) * stride + kernel - in, 0) / 2};
}

template <typename T>
void conv2d_forward(const model::Conv2dGeometry& g, const Shape& x_shape, const Shape& weight_shape,
                    std::span<const T> x, std::span<const T> weight, std::span<const T> bias, std::span<T> y) {
    const Conv2dAxis rows = conv2d_axis(x_shape.h, g.kernel_h, g.stride_h, g.padding);
    const Conv2dAxis cols = conv2d_axis(x_shape.w, g.kernel_w, g.stride_w, g.padding);
    const int cin = x_shape.c, cout = weight_shape.n, height = x_shape.h, width = x_shape.w;
    std::size_t out_index = 0;
    for (int n = 0; n < x_shape.n; ++n)
        for (int co = 0; co < cout; ++co)
            for (int oh = 0; oh < rows.out; ++oh)
                for (int ow = 0; ow < cols.out; ++ow) {
                    T sum = bias[std::size_t(co)];
                    for (int ci = 0; ci < cin; ++ci)
                        for (int ki = 0; ki < g.kernel_h; ++ki)
                            for (int kj = 0; kj < g.kernel_w; ++kj) {
                                const int ih = oh * g.stride_h - rows.pad_before + ki;
                                const int iw = ow * g.stride_w - cols.pad_before + kj;
                                if (ih < 0 || ih >= height || iw < 0 || iw >= width) continue;
                                sum += x[std::size_t(((n * cin + ci) * height + ih) * width + iw)] *
                                       weight[std::size_t(((co * cin + ci) * g.kernel_h + ki) * g.kernel_w + kj)];
                            }
                    y[out_index++] = sum;
                }
}

// Overwrites dx, dweight and dbias: every term of the forward sum sends dy back to the input
// element and the weight it multiplied.
template <typename T>
void conv2d_backward(const model::Conv2dGeometry& g, const Shape& x_shape, const Shape& weight_shape,
                     std::span<const T> x, std::span<const T> weight, std::span<const T> dy, std::span<T> dx,
                     std::span<T> dweight, std::span<T> dbias) {
    const Conv2dAxis rows = conv2d_axis(x_shape.h, g.kernel_h, g.stride_h, g.padding);
    const Conv2dAxis cols = conv2d_axis(x_shape.w, g.kernel_w, g.stride_w, g.padding);
    const int cin = x_shape.c, cout = weight_shape.n, height = x_shape.h, width = x_shape.w;
    std::fill(dx.begin(), dx.end(), T(0));
    std::fill(dweight.begin(), dweight.end(), T(0));
    std::fill(dbias.begin(), dbias.end(), T(0));
    std::size_t out_index = 0;
    for (int n = 0; n < x_shape.n; ++n)
        for (int co = 0; co < cout; ++co)
            for (int oh = 0; oh < rows.out; ++oh)
                for (int ow = 0; ow < cols.out; ++ow) {
                    const T grad = dy[out_index++];
                    dbias[std::size_t(co)] += grad;
                    for (int ci = 0; ci < cin; ++ci)
                        for (int ki = 0; ki < g.kernel_h; ++ki)
                            for (int kj = 0; kj < g.kernel_w; ++kj) {
                                const int ih = oh * g.stride_h - rows.pad_before + ki;
                                const int iw = ow * g.stride_w - cols.pad_before + kj;
                                if (ih < 0 || ih >= height || iw < 0 || iw >= width) continue;
                                const std::size_t xi = std::size_t(((n * cin + ci) * height + ih) * width + iw);
                                const std::size_t wi =
                                    std::size_t(((co * cin + ci) * g.kernel_h + ki) * g.kernel_w + kj);
                                dx[xi] += grad * weight[wi];
                                dweight[wi] += grad * x[xi];
                            }
                }
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_CONV2D_INSTANCES(prefix, T)                                                                           \
    prefix template void conv2d_forward<T>(const model::Conv2dGeometry&, const Shape&, const Shape&,                  \
                                           std::span<const T>, std::span<const T>, std::span<const T>, std::span<T>); \
    prefix template void conv2d_backward<T>(const model::Conv2dGeometry&, const Shape&, const Shape&,                 \
                                            std::span<const T>, std::span<const T>, std::span<const T>, std::span<T>, \
                                            std::span<T>, std::span<T>);
BPS_REF_CONV2D_INSTANCES(extern, float)
BPS_REF_CONV2D_INSTANCES(extern, double)

}  // namespace bps::ref
