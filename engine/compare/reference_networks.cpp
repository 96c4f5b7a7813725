#include "engine/compare/reference_networks.h"

#include <stdexcept>
#include <string>

namespace bps::bench {

using namespace model;
using model::Activation;
using model::Padding;

namespace {
NetworkSpec mlp() {
    NetworkSpec spec;
    spec.input = Shape{1, 1, 28, 28};
    spec.layers = {input_layer(), flatten("flatten"), dense("fc1", 256), activation("relu1", Activation::relu),
                   dense("fc2", 10, train::Initializer::glorot_uniform)};
    return spec;
}

NetworkSpec cnn() {
    NetworkSpec spec;
    spec.input = Shape{1, 1, 28, 28};
    spec.layers = {input_layer(),
                   conv2d("conv1", 32, 3),
                   activation("relu1", Activation::relu),
                   max_pool("pool1", 2, 2),
                   conv2d("conv2", 64, 3),
                   activation("relu2", Activation::relu),
                   max_pool("pool2", 2, 2),
                   flatten("flatten"),
                   dense("fc1", 128),
                   activation("relu3", Activation::relu),
                   dense("fc2", 10, train::Initializer::glorot_uniform)};
    return spec;
}

NetworkSpec cifar() {
    NetworkSpec spec;
    spec.input = Shape{1, 3, 32, 32};
    spec.layers = {input_layer(),
                   conv2d("conv1", 32, 3, 1, Padding::same),
                   activation("relu1", Activation::relu),
                   conv2d("conv2", 32, 3, 1, Padding::same),
                   activation("relu2", Activation::relu),
                   max_pool("pool1", 2, 2),
                   conv2d("conv3", 64, 3, 1, Padding::same),
                   activation("relu3", Activation::relu),
                   conv2d("conv4", 64, 3, 1, Padding::same),
                   activation("relu4", Activation::relu),
                   max_pool("pool2", 2, 2),
                   flatten("flatten"),
                   dense("fc1", 512),
                   activation("relu5", Activation::relu),
                   dense("fc2", 10, train::Initializer::glorot_uniform)};
    return spec;
}
}  // namespace

NetworkSpec reference_network(std::string_view name) {
    if (name == "mlp") return mlp();
    if (name == "cnn") return cnn();
    if (name == "cifar") return cifar();
    throw std::invalid_argument("unknown reference network '" + std::string(name) +
                                "'; the choices are mlp, cnn and cifar");
}

}  // namespace bps::bench
