#pragma once
// How a layer is shaped, with no device involved: convolution and pooling windows, padding,
// activation kinds, dropout's mask threshold, and the output-shape maths that follows from them. The graph analysis,
// the project files and the editor read these; the ops in engine/ops run them on a device.
#include <cstdint>
#include <string>

#include "engine/tensor/shape.h"

namespace bps::model {

enum class Padding { valid, same };

struct Conv2dGeometry {
    int kernel_h = 3, kernel_w = 3;
    int stride_h = 1, stride_w = 1;
    Padding padding = Padding::valid;
};

// One spatial axis of a convolution: the output size and the padding before the first input
// row or column (the rest of the padding goes after).
struct ConvAxis {
    int out = 0;
    int pad_before = 0;
};

// Keras/TensorFlow semantics: valid -> out = (in - k) / stride + 1 (floor); same -> out = ceil(in / stride),
// total padding max((out-1)*stride + k - in, 0), top/left gets total/2, bottom/right the rest.
ConvAxis conv_axis(int in, int kernel, int stride, Padding padding);

// Throws std::invalid_argument (message names the kernel and input sizes) when a valid kernel is larger than
// the input, or when a kernel size, stride or the filter count is below 1.
Shape conv2d_output_shape(const Shape& input, int out_channels, const Conv2dGeometry& geometry);

struct PoolGeometry {
    int size_h = 2, size_w = 2;
    int stride_h = 2, stride_w = 2;
};

// "2x2 window, stride 2x2"
std::string pool_geometry_text(const PoolGeometry& geometry);

// Valid pooling: out = (in - size) / stride + 1 (floor). Throws std::invalid_argument naming the
// sizes when the window is larger than the input or a size or stride is below 1.
Shape pool_output_shape(const Shape& input, const PoolGeometry& geometry);

enum class Activation { relu, leaky_relu, sigmoid, tanh };

// Element i is dropped when dropout_random(seed, step, i) < dropout_threshold(rate), so it is
// dropped with probability rate (to within 2^-32). Throws std::invalid_argument unless
// 0 <= rate < 1.
std::uint32_t dropout_threshold(float rate);

}  // namespace bps::model
