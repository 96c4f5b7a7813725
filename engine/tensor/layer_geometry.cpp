#include "engine/tensor/layer_geometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace bps::model {

namespace {
std::string size_text(int h, int w) {
    return std::to_string(h) + "x" + std::to_string(w);
}
}  // namespace

ConvAxis conv_axis(int in, int kernel, int stride, Padding padding) {
    if (padding == Padding::valid) return {(in - kernel) / stride + 1, 0};
    const int out = (in + stride - 1) / stride;
    const int total = std::max((out - 1) * stride + kernel - in, 0);
    return {out, total / 2};
}

Shape conv2d_output_shape(const Shape& input, int out_channels, const Conv2dGeometry& g) {
    require_valid(input, "Conv2D input");
    if (g.kernel_h < 1 || g.kernel_w < 1 || g.stride_h < 1 || g.stride_w < 1 || out_channels < 1)
        throw std::invalid_argument("Conv2D: kernel " + size_text(g.kernel_h, g.kernel_w) + ", stride " +
                                    size_text(g.stride_h, g.stride_w) + " and " + std::to_string(out_channels) +
                                    " filters must all be at least 1");
    if (g.padding == Padding::valid && (g.kernel_h > input.h || g.kernel_w > input.w))
        throw std::invalid_argument("Conv2D: a " + size_text(g.kernel_h, g.kernel_w) + " kernel does not fit a " +
                                    size_text(input.h, input.w) + " input with valid padding");
    return Shape{input.n, out_channels, conv_axis(input.h, g.kernel_h, g.stride_h, g.padding).out,
                 conv_axis(input.w, g.kernel_w, g.stride_w, g.padding).out};
}

std::string pool_geometry_text(const PoolGeometry& g) {
    return size_text(g.size_h, g.size_w) + " window, stride " + size_text(g.stride_h, g.stride_w);
}

Shape pool_output_shape(const Shape& input, const PoolGeometry& g) {
    if (g.size_h < 1 || g.size_w < 1 || g.stride_h < 1 || g.stride_w < 1)
        throw std::invalid_argument("pooling: invalid " + pool_geometry_text(g));
    if (g.size_h > input.h || g.size_w > input.w)
        throw std::invalid_argument("pooling: " + pool_geometry_text(g) + " does not fit a " + input.to_string() +
                                    " input");
    return {input.n, input.c, (input.h - g.size_h) / g.stride_h + 1, (input.w - g.size_w) / g.stride_w + 1};
}

std::uint32_t dropout_threshold(float rate) {
    if (!(rate >= 0.0f && rate < 1.0f))
        throw std::invalid_argument("dropout: rate " + std::to_string(rate) + " is outside [0, 1)");
    // rate < 1 keeps rate * 2^32 below 2^32 in double, so the conversion cannot overflow.
    return static_cast<std::uint32_t>(std::floor(static_cast<double>(rate) * 4294967296.0));
}

}  // namespace bps::model
