// The engine's parameters in Keras's layout: kernels in Keras's axis order, BatchNorm's statistics
// under Keras's names, and a Dense after a Flatten of a feature map re-ordered from C,H,W to
// H,W,C, checked by computing the same layer both ways on random inputs. Back again gives the
// engine's arrays exactly, matched by name or, as Keras does, in order; a mismatch names the
// layer and both shapes.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "engine/io/keras_layout.h"
#include "tests/engine/io/weights_error_text.h"

using namespace bps;
using io::KerasLayer;
using io::NamedArray;

namespace {

std::vector<float> random_values(std::size_t count, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values) v = value(generator);
    return values;
}

// Conv2D 'same' on 2x4x5 images, BatchNorm on the map, Flatten, BatchNorm on the flat features,
// a second Flatten of a 1x1 map concatenated with the first, then Dense.
model::GraphAnalysis sample_network() {
    model::NetworkSpec spec;
    spec.input = Shape{1, 2, 4, 5};
    spec.layers = {model::input_layer(),
                   model::conv2d("conv1", 3, 3, 1, model::Padding::same),
                   model::batch_norm("bn1"),
                   model::flatten("flatten"),
                   model::batch_norm("bn2"),
                   model::from(model::global_avg_pool("gap"), {"bn1"}),
                   model::from(model::flatten("flatten2"), {"gap"}),
                   model::concat("joined", {"bn2", "flatten2"}),
                   model::dense("fc1", 4)};
    return model::analyse_graph(spec);
}

std::vector<NamedArray> engine_arrays(const model::GraphAnalysis& analysis) {
    std::vector<NamedArray> arrays;
    std::uint32_t seed = 1;
    const auto add = [&](const std::string& name, std::vector<int> dims) {
        std::size_t count = 1;
        for (const int dim : dims) count *= static_cast<std::size_t>(dim);
        arrays.push_back({name, std::move(dims), random_values(count, seed++)});
    };
    (void)analysis;
    add("conv1.weight", {3, 2, 3, 3});
    add("conv1.bias", {3});
    for (const char* bn : {"bn1", "bn2"}) {
        const int features = std::string(bn) == "bn1" ? 3 : 60;
        for (const char* role : {"gamma", "beta", "running_mean", "running_var"})
            add(std::string(bn) + "." + role, {features});
    }
    add("fc1.weight", {4, 63});
    add("fc1.bias", {4});
    return arrays;
}

const NamedArray& weight(const std::vector<KerasLayer>& layers, const std::string& layer, const std::string& name) {
    for (const KerasLayer& keras : layers)
        if (keras.name == layer)
            for (const NamedArray& array : keras.weights)
                if (array.name == name) return array;
    FAIL("no weight " << layer << "/" << name);
    throw std::logic_error("unreachable");
}

const NamedArray& array(const std::vector<NamedArray>& arrays, const std::string& name) {
    for (const NamedArray& a : arrays)
        if (a.name == name) return a;
    FAIL("no array " << name);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("Keras's layout lists every layer with Keras's weight names, shapes and order", "[weights][keras]") {
    const model::GraphAnalysis analysis = sample_network();
    const std::vector<KerasLayer> layers = io::to_keras_layout(analysis, engine_arrays(analysis), "w.h5");
    std::vector<std::string> names;
    for (const KerasLayer& layer : layers) names.push_back(layer.name);
    CHECK(names ==
          std::vector<std::string>{"input", "conv1", "bn1", "flatten", "bn2", "gap", "flatten2", "joined", "fc1"});
    std::map<std::string, std::vector<std::string>> roles;
    for (const KerasLayer& layer : layers)
        for (const NamedArray& w : layer.weights) roles[layer.name].push_back(w.name + " " + io::dims_text(w.dims));
    CHECK(roles["conv1"] == std::vector<std::string>{"kernel 3x3x2x3", "bias 3"});
    CHECK(roles["bn1"] == std::vector<std::string>{"gamma 3", "beta 3", "moving_mean 3", "moving_variance 3"});
    CHECK(roles["fc1"] == std::vector<std::string>{"kernel 63x4", "bias 4"});
    CHECK(roles.count("input") == 0);
    CHECK(roles.count("flatten") == 0);
}

TEST_CASE("a Conv2D kernel goes from (out, in, kh, kw) to Keras's (kh, kw, in, out)", "[weights][keras]") {
    const model::GraphAnalysis analysis = sample_network();
    const std::vector<NamedArray> arrays = engine_arrays(analysis);
    const NamedArray& ours = array(arrays, "conv1.weight");
    const std::vector<KerasLayer> layers = io::to_keras_layout(analysis, arrays, "w.h5");
    const NamedArray& keras = weight(layers, "conv1", "kernel");
    for (int co = 0; co < 3; ++co)
        for (int ci = 0; ci < 2; ++ci)
            for (int y = 0; y < 3; ++y)
                for (int x = 0; x < 3; ++x)
                    CHECK(keras.values[static_cast<std::size_t>(((y * 3 + x) * 2 + ci) * 3 + co)] ==
                          ours.values[static_cast<std::size_t>(((co * 2 + ci) * 3 + y) * 3 + x)]);
}

TEST_CASE("after a Flatten, Dense and BatchNorm compute the same on channels-last inputs as ours on channels-first",
          "[weights][keras]") {
    const model::GraphAnalysis analysis = sample_network();
    const std::vector<NamedArray> arrays = engine_arrays(analysis);
    const std::vector<KerasLayer> layers = io::to_keras_layout(analysis, arrays, "w.h5");
    // The tensor that reaches bn2: conv1's 3x4x5 map flattened. Ours is C,H,W; Keras's is H,W,C.
    const int C = 3, H = 4, W = 5;
    const std::vector<float> map = random_values(C * H * W, 77);  // C,H,W
    const auto at = [&](int c, int h, int w) { return map[static_cast<std::size_t>((c * H + h) * W + w)]; };
    std::vector<float> ours = map, keras;
    for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
            for (int c = 0; c < C; ++c) keras.push_back(at(c, h, w));
    // bn2 in evaluation mode, feature by feature.
    const auto batch_norm = [](std::vector<float> x, const std::vector<float>& gamma, const std::vector<float>& beta,
                               const std::vector<float>& mean, const std::vector<float>& variance) {
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = gamma[i] * (x[i] - mean[i]) / std::sqrt(std::abs(variance[i]) + 1e-3f) + beta[i];
        return x;
    };
    ours = batch_norm(ours, array(arrays, "bn2.gamma").values, array(arrays, "bn2.beta").values,
                      array(arrays, "bn2.running_mean").values, array(arrays, "bn2.running_var").values);
    keras = batch_norm(keras, weight(layers, "bn2", "gamma").values, weight(layers, "bn2", "beta").values,
                       weight(layers, "bn2", "moving_mean").values, weight(layers, "bn2", "moving_variance").values);
    // Concatenated with three pooled features (the same in both orders), then fc1.
    for (const float pooled : {0.5f, -0.25f, 0.75f}) {
        ours.push_back(pooled);
        keras.push_back(pooled);
    }
    const NamedArray& ours_weight = array(arrays, "fc1.weight");       // [units, inputs]
    const NamedArray& keras_kernel = weight(layers, "fc1", "kernel");  // (inputs, units)
    for (int u = 0; u < 4; ++u) {
        double ours_sum = 0, keras_sum = 0;
        for (int i = 0; i < 63; ++i) {
            ours_sum +=
                double(ours_weight.values[static_cast<std::size_t>(u * 63 + i)]) * ours[static_cast<std::size_t>(i)];
            keras_sum +=
                double(keras_kernel.values[static_cast<std::size_t>(i * 4 + u)]) * keras[static_cast<std::size_t>(i)];
        }
        INFO("unit " << u);
        CHECK(keras_sum == Approx(ours_sum).epsilon(1e-5));
    }
}

TEST_CASE("Keras's layout converts back to the engine's arrays exactly, by name or in order", "[weights][keras]") {
    const model::GraphAnalysis analysis = sample_network();
    const std::vector<NamedArray> arrays = engine_arrays(analysis);
    std::vector<KerasLayer> layers = io::to_keras_layout(analysis, arrays, "w.h5");
    const auto check_back = [&](const std::vector<KerasLayer>& from) {
        const std::vector<NamedArray> back = io::from_keras_layout(analysis, from, "w.h5");
        REQUIRE(back.size() == arrays.size());
        for (const NamedArray& original : arrays) {
            INFO(original.name);
            CHECK(array(back, original.name).dims == original.dims);
            CHECK(array(back, original.name).values == original.values);
        }
    };
    check_back(layers);
    // Keras names its layers itself ("dense_1"); weightless layers may be missing or extra.
    std::vector<KerasLayer> renamed;
    for (KerasLayer layer : layers) {
        if (layer.weights.empty()) continue;
        layer.name = "keras_" + layer.name;
        renamed.push_back(std::move(layer));
    }
    renamed.insert(renamed.begin(), KerasLayer{"input_1", {}});
    check_back(renamed);
}

TEST_CASE("weights that do not fit the network name the layer and both shapes", "[weights][keras]") {
    const model::GraphAnalysis analysis = sample_network();
    const std::vector<KerasLayer> good = io::to_keras_layout(analysis, engine_arrays(analysis), "w.h5");
    const auto from = [&](std::vector<KerasLayer> layers) {
        return test::weights_error_text([&] { io::from_keras_layout(analysis, layers, "w.h5"); });
    };
    std::vector<KerasLayer> layers = good;
    layers.back().weights[0] = {"kernel", {64, 4}, random_values(256, 3)};
    CHECK(from(layers) == "w.h5: layer 'fc1': kernel is 64x4 in the file but the network needs 63x4");

    layers = good;
    layers.back().name = "dense_7";
    layers.back().weights[0] = {"kernel", {63, 5}, random_values(315, 3)};
    CHECK(from(layers) ==
          "w.h5: layer 'fc1' (the file's 'dense_7'): kernel is 63x5 in the file but the network "
          "needs 63x4");

    layers = good;
    layers.back().weights.pop_back();
    CHECK(from(layers) == "w.h5: layer 'fc1' has no bias (Dense needs kernel, bias)");

    layers = good;
    layers.back().name = "dense";
    layers.erase(layers.begin() + 1);  // conv1
    CHECK(from(layers) ==
          "w.h5: holds 3 layers with weights but the network has 4; it was saved from a different network");
}
