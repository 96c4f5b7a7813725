#pragma once
// The predictor tests' network written out by hand in double, from the per-op references in
// engine/reference/: Input (C x 8 x 8) -> Conv2D 'conv1' (4 filters, 3x3, same) -> ReLU 'relu1' ->
// BatchNorm 'bn' -> MaxPool 'pool' (2, stride 2) -> Flatten 'flatten' -> Dense 'fc1' (6) -> tanh
// 'tanh' -> Dropout 'dropout' -> Dense 'fc2' (3 classes). It normalises raw [0, 1] pixels as the
// model card says, evaluates (running BatchNorm statistics, dropout the identity), and gives every
// layer's output, the class probabilities and the gradient of a class score (fc2's output, before
// the softmax) with respect to the raw pixels, through the reference backward ops.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/network_spec.h"
#include "engine/reference/activation.h"
#include "engine/reference/batch_norm.h"
#include "engine/reference/conv2d.h"
#include "engine/reference/dense.h"
#include "engine/reference/pool.h"
#include "engine/tensor/shape.h"

namespace bps::test {

struct ReferenceLayer {
    std::string name;
    model::LayerType type = model::LayerType::input;
    int channels = 0, height = 0, width = 0;
    std::vector<double> values;  // CHW
};

struct ReferencePass {
    std::vector<ReferenceLayer> layers;  // in execution order, the input (normalised) first
    std::vector<double> logits;          // fc2's output
    std::vector<double> probabilities;   // softmax of the logits
    // How far the image lies from a kink of the network (a ReLU input at 0, two tied maxima in a
    // pooling window that carry a gradient): a finite difference or a float computation that
    // crosses one would disagree with the gradient for a reason the test is not about.
    double kink_margin = std::numeric_limits<double>::infinity();
};

class ReferenceNetwork {
public:
    static constexpr int size = 8;  // image height and width
    static constexpr int filters = 4;
    static constexpr int hidden = 6;
    static constexpr int classes = 3;

    // The arrays by the engine's names; `mean` and `stddev` per channel; `epsilon` BatchNorm's.
    ReferenceNetwork(int channels, std::span<const io::NamedArray> weights, std::span<const float> mean,
                     std::span<const float> stddev, float epsilon)
        : channels_(channels),
          mean_(mean.begin(), mean.end()),
          stddev_(stddev.begin(), stddev.end()),
          epsilon_(epsilon),
          conv_weight_(array(weights, "conv1.weight")),
          conv_bias_(array(weights, "conv1.bias")),
          gamma_(array(weights, "bn.gamma")),
          beta_(array(weights, "bn.beta")),
          running_mean_(array(weights, "bn.running_mean")),
          running_var_(array(weights, "bn.running_var")),
          fc1_weight_(array(weights, "fc1.weight")),
          fc1_bias_(array(weights, "fc1.bias")),
          fc2_weight_(array(weights, "fc2.weight")),
          fc2_bias_(array(weights, "fc2.bias")) {}

    int channels() const { return channels_; }
    std::size_t pixels() const { return std::size_t(channels_) * size * size; }

    ReferencePass forward(std::span<const double> raw) const {
        Internals in = run(raw);
        ReferencePass pass;
        pass.kink_margin = in.kink_margin;
        const auto layer = [&](const char* name, model::LayerType type, const Shape& s, std::vector<double> values) {
            pass.layers.push_back({name, type, s.c, s.h, s.w, std::move(values)});
        };
        const Shape image{1, channels_, size, size}, maps{1, filters, size, size}, pooled{1, filters, 4, 4};
        layer("input", model::LayerType::input, image, in.x);
        layer("conv1", model::LayerType::conv2d, maps, in.conv);
        layer("relu1", model::LayerType::activation, maps, in.relu);
        layer("bn", model::LayerType::batch_norm, maps, in.bn);
        layer("pool", model::LayerType::max_pool, pooled, in.pool);
        layer("flatten", model::LayerType::flatten, Shape{1, int(in.pool.size()), 1, 1}, in.pool);
        layer("fc1", model::LayerType::dense, Shape{1, hidden, 1, 1}, in.fc1);
        layer("tanh", model::LayerType::activation, Shape{1, hidden, 1, 1}, in.tanh);
        layer("dropout", model::LayerType::dropout, Shape{1, hidden, 1, 1}, in.tanh);  // evaluation: identity
        layer("fc2", model::LayerType::dense, Shape{1, classes, 1, 1}, in.logits);
        pass.logits = in.logits;
        const double top = *std::max_element(in.logits.begin(), in.logits.end());
        double sum = 0;
        for (double logit : in.logits) sum += std::exp(logit - top);
        for (double logit : in.logits) pass.probabilities.push_back(std::exp(logit - top) / sum);
        return pass;
    }

    // Class `label`'s score: fc2's output before the softmax.
    double score(std::span<const double> raw, int label) const { return run(raw).logits.at(std::size_t(label)); }

    // d score(label) / d raw pixel, CHW, by the reference backward ops.
    std::vector<double> input_gradient(std::span<const double> raw, int label) const {
        const Internals in = run(raw);
        const Shape image{1, channels_, size, size}, maps{1, filters, size, size};
        const Shape fc1_shape{hidden, int(in.pool.size()), 1, 1}, fc2_shape{classes, hidden, 1, 1};

        std::vector<double> d_logits(classes, 0.0);
        d_logits.at(std::size_t(label)) = 1.0;
        // fc2 (dropout passes the gradient unchanged in evaluation)
        std::vector<double> d_tanh(hidden), dw2(fc2_weight_.size()), db2(classes);
        ref::dense_backward<double>(Shape{1, hidden, 1, 1}, fc2_shape, in.tanh, fc2_weight_, d_logits, d_tanh, dw2,
                                    db2);
        std::vector<double> d_fc1(hidden);
        ref::activation_backward<double>(model::Activation::tanh, 0.0, in.fc1, in.tanh, d_tanh, d_fc1);
        std::vector<double> d_pool(in.pool.size()), dw1(fc1_weight_.size()), db1(hidden);
        ref::dense_backward<double>(Shape{1, int(in.pool.size()), 1, 1}, fc1_shape, in.pool, fc1_weight_, d_fc1, d_pool,
                                    dw1, db1);
        std::vector<double> d_bn(in.bn.size());
        ref::max_pool_backward<double>(maps, pool_geometry(), d_pool, in.argmax, d_bn);
        std::vector<double> d_relu(in.relu.size());
        ref::batch_norm_backward_eval<double>(maps, epsilon_, gamma_, running_var_, d_bn, d_relu);
        std::vector<double> d_conv(in.conv.size());
        ref::activation_backward<double>(model::Activation::relu, 0.0, in.conv, in.relu, d_relu, d_conv);
        std::vector<double> d_x(in.x.size()), dw(conv_weight_.size()), db(filters);
        ref::conv2d_backward<double>(conv_geometry(), image, Shape{filters, channels_, 3, 3}, in.x, conv_weight_,
                                     d_conv, d_x, dw, db);
        // The network saw (raw - mean) / stddev.
        for (int c = 0; c < channels_; ++c)
            for (std::size_t p = 0; p < image.plane(); ++p)
                d_x[std::size_t(c) * image.plane() + p] /= stddev_[std::size_t(c)];
        return d_x;
    }

    static model::Conv2dGeometry conv_geometry() { return {3, 3, 1, 1, model::Padding::same}; }
    static model::PoolGeometry pool_geometry() { return {2, 2, 2, 2}; }

private:
    struct Internals {
        std::vector<double> x, conv, relu, bn, pool, fc1, tanh, logits;
        std::vector<int> argmax;
        double kink_margin = std::numeric_limits<double>::infinity();
    };

    static std::vector<double> array(std::span<const io::NamedArray> weights, const std::string& name) {
        for (const io::NamedArray& a : weights)
            if (a.name == name) return {a.values.begin(), a.values.end()};
        throw std::invalid_argument("the reference network needs an array '" + name + "'");
    }

    Internals run(std::span<const double> raw) const {
        if (raw.size() != pixels()) throw std::invalid_argument("the reference network takes one image");
        Internals in;
        const Shape image{1, channels_, size, size}, maps{1, filters, size, size};
        in.x.resize(raw.size());
        for (int c = 0; c < channels_; ++c)
            for (std::size_t p = 0; p < image.plane(); ++p) {
                const std::size_t i = std::size_t(c) * image.plane() + p;
                in.x[i] = (raw[i] - mean_[std::size_t(c)]) / stddev_[std::size_t(c)];
            }
        in.conv.resize(maps.count());
        ref::conv2d_forward<double>(conv_geometry(), image, Shape{filters, channels_, 3, 3}, in.x, conv_weight_,
                                    conv_bias_, in.conv);
        in.relu.resize(in.conv.size());
        ref::activation_forward<double>(model::Activation::relu, 0.0, in.conv, in.relu);
        in.bn.resize(in.relu.size());
        ref::batch_norm_forward_eval<double>(maps, epsilon_, in.relu, gamma_, beta_, running_mean_, running_var_,
                                             in.bn);
        const Shape pooled = model::pool_output_shape(maps, pool_geometry());
        in.pool.resize(pooled.count());
        in.argmax.resize(pooled.count());
        ref::max_pool_forward<double>(maps, pool_geometry(), in.bn, in.pool, in.argmax);
        in.fc1.resize(hidden);
        ref::dense_forward<double>(Shape{1, int(in.pool.size()), 1, 1}, Shape{hidden, int(in.pool.size()), 1, 1},
                                   in.pool, fc1_weight_, fc1_bias_, in.fc1);
        in.tanh.resize(hidden);
        ref::activation_forward<double>(model::Activation::tanh, 0.0, in.fc1, in.tanh);
        in.logits.resize(classes);
        ref::dense_forward<double>(Shape{1, hidden, 1, 1}, Shape{classes, hidden, 1, 1}, in.tanh, fc2_weight_,
                                   fc2_bias_, in.logits);

        for (double v : in.conv) in.kink_margin = std::min(in.kink_margin, std::fabs(v));
        // A pooling window's two largest values, where a gradient would flow through either (two
        // outputs of dead ReLUs are equal and both carry none).
        for (int c = 0; c < filters; ++c)
            for (int oh = 0; oh < pooled.h; ++oh)
                for (int ow = 0; ow < pooled.w; ++ow) {
                    std::vector<std::size_t> window;
                    for (int kh = 0; kh < 2; ++kh)
                        for (int kw = 0; kw < 2; ++kw)
                            window.push_back(std::size_t(c) * maps.plane() + std::size_t((oh * 2 + kh) * size) +
                                             std::size_t(ow * 2 + kw));
                    std::sort(window.begin(), window.end(),
                              [&](std::size_t a, std::size_t b) { return in.bn[a] > in.bn[b]; });
                    if (in.conv[window[0]] > 0 || in.conv[window[1]] > 0)
                        in.kink_margin = std::min(in.kink_margin, in.bn[window[0]] - in.bn[window[1]]);
                }
        return in;
    }

    int channels_;
    std::vector<double> mean_, stddev_;
    double epsilon_;
    std::vector<double> conv_weight_, conv_bias_, gamma_, beta_, running_mean_, running_var_;
    std::vector<double> fc1_weight_, fc1_bias_, fc2_weight_, fc2_bias_;
};

}  // namespace bps::test
