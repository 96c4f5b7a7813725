// The device-free analysis behind `backprop summary` and the project editor: shapes, parameter
// counts, FLOPs and activation memory per layer, checked against figures worked out by hand.
#include <catch2/catch.hpp>

#include "engine/compare/reference_networks.h"
#include "engine/model/graph_analysis.h"

using namespace bps;
using namespace bps::model;

namespace {
void require_analysis_error(const NetworkSpec& spec, const std::string& message) {
    REQUIRE_THROWS_MATCHES(analyse_graph(spec), ModelError, Catch::Matchers::Message(message));
}
}  // namespace

TEST_CASE("the cnn's analysis gives each layer's parameters, FLOPs and activation bytes", "[analysis]") {
    const GraphAnalysis analysis = analyse_graph(bench::reference_network("cnn"));
    struct Expected {
        const char* name;
        Shape output;
        std::size_t parameters;
        double flops;  // multiply-add = 2, plus one add per output for a bias
    };
    // conv1: 3x3x1 taps per output, 32x26x26 outputs; conv2: 3x3x32 taps, 64x11x11 outputs;
    // pools: one operation per window element; fc1: 1600 inputs, 128 outputs.
    const std::vector<Expected> expected = {
        {"input", {1, 1, 28, 28}, 0, 0},
        {"conv1", {1, 32, 26, 26}, 32 * 9 + 32, (2.0 * 9 + 1) * 32 * 26 * 26},
        {"relu1", {1, 32, 26, 26}, 0, 32.0 * 26 * 26},
        {"pool1", {1, 32, 13, 13}, 0, 4.0 * 32 * 13 * 13},
        {"conv2", {1, 64, 11, 11}, 64 * 288 + 64, (2.0 * 288 + 1) * 64 * 11 * 11},
        {"relu2", {1, 64, 11, 11}, 0, 64.0 * 11 * 11},
        {"pool2", {1, 64, 5, 5}, 0, 4.0 * 64 * 5 * 5},
        {"flatten", {1, 1600, 1, 1}, 0, 0},
        {"fc1", {1, 128, 1, 1}, 1600 * 128 + 128, (2.0 * 1600 + 1) * 128},
        {"relu3", {1, 128, 1, 1}, 0, 128},
        {"fc2", {1, 10, 1, 1}, 128 * 10 + 10, (2.0 * 128 + 1) * 10},
    };
    REQUIRE(analysis.layers.size() == expected.size());
    double flops = 0;
    std::size_t activation_bytes = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        INFO(layer.spec.name);
        CHECK(layer.spec.name == expected[i].name);
        CHECK(layer.output == expected[i].output);
        CHECK(layer.parameters == expected[i].parameters);
        CHECK(layer.trainable_parameters == expected[i].parameters);
        CHECK(layer.flops == expected[i].flops);
        // Flatten is a view of its input and takes no memory of its own.
        const std::size_t bytes = i == 7 ? 0 : expected[i].output.per_sample() * 4;
        CHECK(layer.activation_bytes == bytes);
        flops += expected[i].flops;
        activation_bytes += bytes;
    }
    CHECK(analysis.parameters() == 225034);  // Keras's count for this network
    CHECK(analysis.flops() == flops);
    CHECK(analysis.activation_bytes() == activation_bytes);
}

TEST_CASE("BatchNormalization's running statistics count as parameters that are not trained", "[analysis]") {
    NetworkSpec spec;
    spec.input = Shape{1, 3, 8, 8};
    spec.layers = {input_layer(), conv2d("conv", 6, 3), batch_norm("bn"), global_avg_pool("gap"), dense("out", 2)};
    const GraphAnalysis analysis = analyse_graph(spec);
    const LayerAnalysis& bn = analysis.layers[2];
    CHECK(bn.trainable_parameters == 12);
    CHECK(bn.parameters == 24);
    CHECK(analysis.parameters() - analysis.trainable_parameters() == 12);
}

TEST_CASE("the analysis names the layer that cannot work and what to change", "[analysis]") {
    NetworkSpec spec;
    spec.input = Shape{1, 1, 3, 3};
    SECTION("a pool window larger than its input") {
        spec.layers = {input_layer(), max_pool("pool1", 4, 4), flatten("f"), dense("out", 2)};
        require_analysis_error(spec, "MaxPool2D 'pool1': pool 4x4 is larger than its 3x3 input");
    }
    SECTION("a kernel larger than its input") {
        spec.layers = {input_layer(), conv2d("conv3", 2, 5), flatten("f"), dense("out", 2)};
        require_analysis_error(spec,
                               "Conv2D 'conv3': kernel 5x5 is larger than its 3x3 input; use a smaller kernel or "
                               "'same' padding");
    }
    SECTION("a kernel larger than its input is fine with same padding") {
        spec.layers = {input_layer(), conv2d("conv3", 2, 5, 1, model::Padding::same), flatten("f"), dense("out", 2)};
        CHECK(analyse_graph(spec).layers[1].output == Shape{1, 2, 3, 3});
    }
    SECTION("an empty input") {
        spec.input = Shape{1, 0, 3, 3};
        spec.layers = {input_layer(), flatten("f"), dense("out", 2)};
        CHECK_THROWS_AS(analyse_graph(spec), std::invalid_argument);
    }
}

TEST_CASE("the output must give one score per class of the dataset", "[analysis]") {
    NetworkSpec spec = bench::reference_network("mlp");
    spec.layers.back().units = 5;
    REQUIRE_THROWS_MATCHES(checked_analysis(spec, analyse_graph_report(spec, 10)), ModelError,
                           Catch::Matchers::Message("the output 'fc2' has 5 units but the dataset has 10 classes"));
    CHECK_NOTHROW(checked_analysis(spec, analyse_graph_report(spec, 5)));
}
