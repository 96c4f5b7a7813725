// The predictor against a plain C++ reference of the same small network in double
// (reference_network.h): its probabilities, every layer's output, the input gradient of a class
// score (itself checked against central finite differences), occlusion against a brute-force loop
// of single predictions, and the refusal of weights saved from another network. Images are random
// pixels in [0, 1] from fixed seeds, normalised with a per-channel mean and deviation that are not
// 0 and 1, so a predictor that forgot the normalisation (or applied it per image, not per channel)
// fails.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/runs/checkpoint.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/predictor.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/session/reference_network.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using bps::session::LayerOutput;
using bps::session::OcclusionMap;
using bps::session::Predictor;
using bps::session::PredictorSource;
using bps::test::ReferenceNetwork;

namespace {

constexpr int channels = 3;
constexpr int size = ReferenceNetwork::size;
constexpr std::size_t pixels = std::size_t(channels) * size * size;
constexpr float bn_epsilon = 0.01f;  // not Keras's default, so the predictor must read the layer's
// A whole network in float against the double reference: each op is within 1e-5 (ops/conv2d.h,
// ops/dense.h); a few of them in a row stay well within this.
constexpr double predictor_tolerance = 1e-4;

const std::vector<float> channel_mean = {0.3f, 0.45f, 0.6f};
const std::vector<float> channel_stddev = {0.2f, 0.25f, 0.3f};

project::Project small_project() {
    project::Project project;
    project.name = "inside";
    model::LayerSpec bn = model::batch_norm("bn");
    bn.epsilon = bn_epsilon;
    project.network.layers = {model::input_layer("input"),
                              model::conv2d("conv1", ReferenceNetwork::filters, 3, 1, model::Padding::same),
                              model::activation("relu1", model::Activation::relu),
                              bn,
                              model::max_pool("pool", 2, 2),
                              model::flatten("flatten"),
                              model::dense("fc1", ReferenceNetwork::hidden),
                              model::activation("tanh", model::Activation::tanh),
                              model::dropout("dropout", 0.3f),
                              model::dense("fc2", ReferenceNetwork::classes)};
    return project;
}

session::ModelCard small_card() {
    session::ModelCard card;
    card.project = "inside";
    card.shape = datasets::ImageShape{channels, size, size};
    card.class_names = {"circle", "square", "star"};
    card.normalization.mean = channel_mean;
    card.normalization.stddev = channel_stddev;
    return card;
}

// Every parameter as the engine names and shapes it (the dims of Network::parameters()),
// random and never zero.
std::vector<io::NamedArray> small_weights() {
    const int f = ReferenceNetwork::filters, hidden = ReferenceNetwork::hidden, classes = ReferenceNetwork::classes;
    const int flat = f * (size / 2) * (size / 2);
    std::uint32_t seed = 1000;
    const auto array = [&](std::string name, std::vector<int> dims, float low, float high) {
        std::size_t count = 1;
        for (int d : dims) count *= std::size_t(d);
        return io::NamedArray{std::move(name), std::move(dims), test::random_values(count, seed++, low, high)};
    };
    return {array("conv1.weight", {f, channels, 3, 3}, -0.5f, 0.5f),
            array("conv1.bias", {f}, -0.2f, 0.2f),
            array("bn.gamma", {f}, 0.5f, 1.5f),
            array("bn.beta", {f}, -0.3f, 0.3f),
            array("bn.running_mean", {f}, 0.1f, 0.5f),
            array("bn.running_var", {f}, 0.2f, 1.0f),  // positive
            array("fc1.weight", {hidden, flat}, -0.3f, 0.3f),
            array("fc1.bias", {hidden}, -0.2f, 0.2f),
            array("fc2.weight", {classes, hidden}, -1.0f, 1.0f),
            array("fc2.bias", {classes}, -0.2f, 0.2f)};
}

PredictorSource small_source(std::vector<io::NamedArray> weights = small_weights()) {
    return {small_project(), small_card(), std::move(weights), "the run 'inside'"};
}

ReferenceNetwork small_reference() {
    const std::vector<io::NamedArray> weights = small_weights();
    return ReferenceNetwork(channels, weights, channel_mean, channel_stddev, bn_epsilon);
}

// `count` images of raw pixels in [0, 1] (never 0: random_values keeps them at least 0.05).
std::vector<float> random_images(std::size_t count, std::uint32_t seed) {
    return test::random_values(count * pixels, seed, 0.0f, 1.0f);
}

std::span<const float> image_of(const std::vector<float>& images, std::size_t index) {
    return std::span<const float>(images).subspan(index * pixels, pixels);
}

std::vector<double> as_double(std::span<const float> image) {
    return test::to_double(image);
}

std::size_t argmax(const std::vector<double>& values) {
    return std::size_t(std::max_element(values.begin(), values.end()) - values.begin());
}

// The pixels of `image` with a grey square (0.5 in every channel) at (top, left).
std::vector<float> occluded(std::span<const float> image, int top, int left, int patch) {
    std::vector<float> copy(image.begin(), image.end());
    for (int c = 0; c < channels; ++c)
        for (int y = top; y < top + patch; ++y)
            for (int x = left; x < left + patch; ++x) copy[std::size_t((c * size + y) * size + x)] = 0.5f;
    return copy;
}

// Each pixel's mean drop over the positions whose patch covers it, by looping over the positions.
std::vector<float> brute_force_pixel_drops(const OcclusionMap& map, int height, int width) {
    std::vector<double> sum(std::size_t(height) * width, 0.0);
    std::vector<int> covered(sum.size(), 0);
    for (int row = 0; row < map.rows; ++row)
        for (int column = 0; column < map.columns; ++column)
            for (int y = row * map.stride; y < row * map.stride + map.patch; ++y)
                for (int x = column * map.stride; x < column * map.stride + map.patch; ++x) {
                    sum[std::size_t(y) * width + x] += map.drops[std::size_t(row) * map.columns + column];
                    ++covered[std::size_t(y) * width + x];
                }
    std::vector<float> mean(sum.size(), 0.0f);
    for (std::size_t i = 0; i < sum.size(); ++i)
        if (covered[i] > 0) mean[i] = float(sum[i] / covered[i]);
    return mean;
}

// The message of the `Exception` that `call` throws (a failed check when it throws another or none).
template <typename Exception, typename Call>
std::string message_of(Call call) {
    try {
        call();
    } catch (const Exception& error) {
        return error.what();
    }
    FAIL("no exception of the expected type was thrown");
    return {};
}

}  // namespace

TEST_CASE("a predictor keeps its card and project and lists every layer with its output shape", "[predictor]") {
    Predictor predictor(small_source());
    CHECK(predictor.class_count() == 3);
    CHECK(predictor.card().class_names == small_card().class_names);
    CHECK(predictor.card().shape == small_card().shape);
    CHECK(predictor.project().name == "inside");
    CHECK_FALSE(predictor.device_name().empty());

    struct Expected {
        std::string name;
        model::LayerType type;
        int channels, height, width;
    };
    const std::vector<Expected> expected = {
        {"input", model::LayerType::input, 3, 8, 8},      {"conv1", model::LayerType::conv2d, 4, 8, 8},
        {"relu1", model::LayerType::activation, 4, 8, 8}, {"bn", model::LayerType::batch_norm, 4, 8, 8},
        {"pool", model::LayerType::max_pool, 4, 4, 4},    {"flatten", model::LayerType::flatten, 64, 1, 1},
        {"fc1", model::LayerType::dense, 6, 1, 1},        {"tanh", model::LayerType::activation, 6, 1, 1},
        {"dropout", model::LayerType::dropout, 6, 1, 1},  {"fc2", model::LayerType::dense, 3, 1, 1}};
    const std::vector<LayerOutput> layers = predictor.layers();
    REQUIRE(layers.size() == expected.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        INFO("layer " << i << ": " << expected[i].name);
        CHECK(layers[i].name == expected[i].name);
        CHECK(layers[i].type == expected[i].type);
        CHECK(layers[i].channels == expected[i].channels);
        CHECK(layers[i].height == expected[i].height);
        CHECK(layers[i].width == expected[i].width);
        CHECK(layers[i].values.empty());
    }

    SECTION("and a moved predictor goes on predicting") {
        const std::vector<float> image = random_images(1, 5);
        const std::vector<std::vector<float>> before = predictor.predict(image);
        Predictor moved(std::move(predictor));
        CHECK(moved.predict(image) == before);
        Predictor assigned(small_source());
        assigned = std::move(moved);
        CHECK(assigned.predict(image) == before);
    }
}

TEST_CASE("a predictor's probabilities equal the reference's softmax, in one call or one image at a time",
          "[predictor]") {
    Predictor predictor(small_source());
    const ReferenceNetwork reference = small_reference();
    // More images than any batch a predictor would plan for so few pixels, and an odd number.
    constexpr std::size_t count = 67;
    const std::vector<float> images = random_images(count, 11);

    const std::vector<std::vector<float>> together = predictor.predict(images);
    REQUIRE(together.size() == count);
    for (std::size_t i = 0; i < count; ++i) {
        INFO("image " << i);
        const test::ReferencePass expected = reference.forward(as_double(image_of(images, i)));
        REQUIRE(together[i].size() == 3);
        test::require_close(together[i], test::to_float(expected.probabilities), predictor_tolerance, "probabilities");
        double sum = 0;
        for (float p : together[i]) sum += p;
        CHECK(sum == Approx(1.0).epsilon(1e-5));
    }
    // The random weights must not give every image the same class, or argmax tests below prove less.
    std::vector<int> winners(3, 0);
    for (const std::vector<float>& p : together)
        ++winners[std::size_t(std::max_element(p.begin(), p.end()) - p.begin())];
    CHECK(std::count(winners.begin(), winners.end(), 0) <= 1);

    for (std::size_t i = 0; i < 5; ++i) {
        INFO("image " << i << " alone");
        const std::vector<std::vector<float>> alone = predictor.predict(image_of(images, i));
        REQUIRE(alone.size() == 1);
        test::require_close(alone[0], together[i], 1e-5, "probabilities of one image and of the batch");
    }
}

TEST_CASE("activations give every layer's output for one image, equal to the reference", "[predictor]") {
    Predictor predictor(small_source());
    const ReferenceNetwork reference = small_reference();
    const std::vector<float> image = random_images(1, 21);
    const test::ReferencePass expected = reference.forward(as_double(image));

    SECTION("every layer, the input (as the network sees it: normalised) included") {
        const std::vector<LayerOutput> layers = predictor.activations(image);
        REQUIRE(layers.size() == expected.layers.size());
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const test::ReferenceLayer& want = expected.layers[i];
            INFO("layer " << want.name);
            CHECK(layers[i].name == want.name);
            CHECK(layers[i].type == want.type);
            CHECK(layers[i].channels == want.channels);
            CHECK(layers[i].height == want.height);
            CHECK(layers[i].width == want.width);
            REQUIRE(layers[i].values.size() == want.values.size());
            // A Conv2D's own output is before its ReLU, even if the engine fuses the two.
            test::require_close(layers[i].values, test::to_float(want.values), predictor_tolerance, want.name);
        }
    }
    SECTION("the layers named, alone") {
        const std::vector<LayerOutput> conv = predictor.activations(image, {"conv1"});
        REQUIRE(conv.size() == 1);
        CHECK(conv[0].name == "conv1");
        CHECK(conv[0].type == model::LayerType::conv2d);
        CHECK((conv[0].channels == 4 && conv[0].height == 8 && conv[0].width == 8));
        test::require_close(conv[0].values, test::to_float(expected.layers[1].values), predictor_tolerance, "conv1");
    }
    SECTION("in execution order, whatever order they were asked in") {
        const std::vector<LayerOutput> two = predictor.activations(image, {"fc2", "pool"});
        REQUIRE(two.size() == 2);
        CHECK(two[0].name == "pool");
        CHECK(two[1].name == "fc2");
        test::require_close(two[0].values, test::to_float(expected.layers[4].values), predictor_tolerance, "pool");
        test::require_close(two[1].values, test::to_float(expected.logits), predictor_tolerance, "fc2");
    }
    SECTION("a layer the network lacks is refused by name") {
        CHECK_THAT(message_of<std::invalid_argument>([&] { predictor.activations(image, {"conv9"}); }),
                   Catch::Matchers::Contains("conv9"));
        CHECK_THAT(message_of<std::invalid_argument>([&] {
                       predictor.activations(image, {"conv1", "fc9"});
                   }),
                   Catch::Matchers::Contains("fc9"));
    }
}

TEST_CASE("the reference's input gradient equals central differences of its class score", "[predictor][reference]") {
    const ReferenceNetwork reference = small_reference();
    for (std::uint32_t seed : {31u, 32u, 33u}) {
        const std::vector<double> image = as_double(random_images(1, seed));
        REQUIRE(reference.forward(image).kink_margin > 1e-4);  // no ReLU or pooling tie within reach of h
        for (int label = 0; label < 3; ++label) {
            INFO("image seed " << seed << ", class " << label);
            const std::vector<double> analytic = reference.input_gradient(image, label);
            const std::vector<double> numeric = test::numeric_gradient(
                [&](std::span<const double> x) { return reference.score(x, label); }, image, 1e-6);
            CHECK(test::max_abs(test::to_float(analytic)) > 1e-3);  // not a vanishing gradient
            // Piecewise smooth away from kinks: only rounding and h^2 terms remain.
            test::require_close(analytic, numeric, 1e-6, "d score / d raw pixel");
        }
    }
}

TEST_CASE("input_gradient equals the reference's gradient of the class score with respect to the raw pixels",
          "[predictor]") {
    Predictor predictor(small_source());
    const ReferenceNetwork reference = small_reference();
    for (std::uint32_t seed : {31u, 32u, 33u}) {
        const std::vector<float> image = random_images(1, seed);
        const std::vector<double> raw = as_double(image);
        const test::ReferencePass expected = reference.forward(raw);
        // Far enough from a kink that float and double take the same branch of every ReLU and max.
        REQUIRE(expected.kink_margin > 1e-4);
        for (int label = 0; label < 3; ++label) {
            INFO("image seed " << seed << ", class " << label);
            const session::InputGradient gradient = predictor.input_gradient(image, label);
            CHECK(gradient.label == label);
            CHECK(gradient.score == Approx(expected.logits[std::size_t(label)]).margin(1e-4));
            REQUIRE(gradient.values.size() == pixels);
            test::require_close(gradient.values, test::to_float(reference.input_gradient(raw, label)),
                                predictor_tolerance, "d score / d raw pixel");
        }
    }
}

TEST_CASE("occlusion equals a loop of single predictions with a grey patch at every position", "[predictor]") {
    Predictor predictor(small_source());
    const ReferenceNetwork reference = small_reference();
    constexpr int patch = 3, stride = 2;
    constexpr int positions = (size - patch) / stride + 1;  // 3: rows 0-6 covered, row 7 not
    const std::vector<float> image = random_images(1, 41);
    const std::vector<double> base = reference.forward(as_double(image)).probabilities;
    const std::size_t predicted = argmax(base);

    const auto check_map = [&](const OcclusionMap& map, int label) {
        CHECK(map.label == label);
        CHECK(map.patch == patch);
        CHECK(map.stride == stride);
        CHECK(map.rows == positions);
        CHECK(map.columns == positions);
        CHECK(map.probability == Approx(base[std::size_t(label)]).margin(1e-5));
        REQUIRE(map.drops.size() == std::size_t(positions * positions));
        const float whole = predictor.predict(image).at(0).at(std::size_t(label));
        std::vector<float> looped, referenced;
        for (int row = 0; row < positions; ++row)
            for (int column = 0; column < positions; ++column) {
                const std::vector<float> covered = occluded(image, row * stride, column * stride, patch);
                looped.push_back(whole - predictor.predict(covered).at(0).at(std::size_t(label)));
                referenced.push_back(float(base[std::size_t(label)] -
                                           reference.forward(as_double(covered)).probabilities[std::size_t(label)]));
            }
        // Differences of probabilities: absolute errors, on the scale of a probability (1).
        test::require_close(map.drops, looped, 1e-5, "drops against single predictions", 1.0);
        test::require_close(map.drops, referenced, predictor_tolerance, "drops against the reference", 1.0);
        CHECK(test::max_abs(map.drops) > 1e-3);  // the patches change something

        const std::vector<float> pixel = map.pixel_drops(size, size);
        REQUIRE(pixel.size() == std::size_t(size * size));
        test::require_close(pixel, brute_force_pixel_drops(map, size, size), 1e-6, "pixel drops", 1.0);
        // By hand: (0, 0) lies under position (0, 0) alone; (2, 2) under the four positions (0|1, 0|1);
        // (3, 5) under (1, 2) alone; the last row and column under none.
        const auto drop = [&](int row, int column) { return map.drops[std::size_t(row * positions + column)]; };
        CHECK(pixel[0] == Approx(drop(0, 0)).margin(1e-7));
        CHECK(pixel[2 * size + 2] == Approx((drop(0, 0) + drop(0, 1) + drop(1, 0) + drop(1, 1)) / 4).margin(1e-7));
        CHECK(pixel[3 * size + 5] == Approx(drop(1, 2)).margin(1e-7));
        for (int i = 0; i < size; ++i) {
            CHECK(pixel[std::size_t(7 * size + i)] == 0.0f);
            CHECK(pixel[std::size_t(i * size + 7)] == 0.0f);
        }
    };

    SECTION("of the most probable class when no class is given") {
        std::vector<double> sorted = base;
        std::sort(sorted.rbegin(), sorted.rend());
        REQUIRE(sorted[0] - sorted[1] > 1e-3);  // a clear winner, whatever the rounding
        check_map(predictor.occlusion(image, patch, stride), int(predicted));
    }
    SECTION("of the class given") {
        const int other = int((predicted + 1) % 3);
        check_map(predictor.occlusion(image, patch, stride, other), other);
    }
}

TEST_CASE("occlusion refuses a patch larger than the image and a stride below 1", "[predictor]") {
    Predictor predictor(small_source());
    const std::vector<float> image = random_images(1, 51);
    CHECK_THROWS_AS(predictor.occlusion(image, size + 1, 2), std::invalid_argument);
    CHECK_THROWS_AS(predictor.occlusion(image, 3, 0), std::invalid_argument);
    CHECK_THROWS_AS(predictor.occlusion(image, 3, -1), std::invalid_argument);
    // The whole image as one patch is allowed: one position.
    const OcclusionMap whole = predictor.occlusion(image, size, 1);
    CHECK(whole.rows == 1);
    CHECK(whole.columns == 1);
    CHECK(whole.drops.size() == 1);
}

TEST_CASE("a class outside the network and values that are not whole images are refused", "[predictor]") {
    Predictor predictor(small_source());
    const std::vector<float> two = random_images(2, 71);
    const std::span<const float> one = image_of(two, 0);
    CHECK_THAT(message_of<std::invalid_argument>([&] { predictor.input_gradient(one, 3); }),
               Catch::Matchers::Contains("3"));
    CHECK_THROWS_AS(predictor.input_gradient(one, -1), std::invalid_argument);
    CHECK_THROWS_AS(predictor.occlusion(one, 3, 2, 3), std::invalid_argument);
    CHECK_THROWS_AS(predictor.occlusion(one, 0, 2), std::invalid_argument);
    CHECK_THROWS_AS(predictor.predict(one.first(pixels - 1)), std::invalid_argument);
    CHECK_THROWS_AS(predictor.activations(two), std::invalid_argument);
    CHECK_THROWS_AS(predictor.input_gradient(two, 0), std::invalid_argument);
    CHECK(predictor.predict(one).size() == 1);  // still usable
}

TEST_CASE("pixel_drops averages the positions covering each pixel and gives 0 to a pixel none covers", "[predictor]") {
    // A 2x2 patch moved by 3 over a 6x7 image: rows 0-1 and 3-4, columns 0-1 and 3-4 covered, nothing
    // overlaps, row 2, row 5 and columns 2, 5 and 6 are covered by none.
    OcclusionMap map;
    map.patch = 2;
    map.stride = 3;
    map.rows = (6 - 2) / 3 + 1;
    map.columns = (7 - 2) / 3 + 1;
    REQUIRE((map.rows == 2 && map.columns == 2));
    map.drops = {0.5f, -0.25f, 0.125f, 0.75f};
    const std::vector<float> pixel = map.pixel_drops(6, 7);
    REQUIRE(pixel.size() == 42);
    const auto at = [&](int y, int x) { return pixel[std::size_t(y * 7 + x)]; };
    CHECK(at(0, 0) == 0.5f);
    CHECK(at(1, 1) == 0.5f);
    CHECK(at(0, 3) == -0.25f);
    CHECK(at(4, 1) == 0.125f);
    CHECK(at(4, 4) == 0.75f);
    CHECK(at(2, 0) == 0.0f);
    CHECK(at(5, 4) == 0.0f);
    CHECK(at(0, 6) == 0.0f);
    CHECK(pixel == brute_force_pixel_drops(map, 6, 7));

    // Overlapping: a 3x3 patch moved by 1 over 4x4; (1, 1) lies under all four positions.
    OcclusionMap overlapping;
    overlapping.patch = 3;
    overlapping.stride = 1;
    overlapping.rows = overlapping.columns = 2;
    overlapping.drops = {0.1f, 0.2f, 0.3f, 0.4f};
    const std::vector<float> over = overlapping.pixel_drops(4, 4);
    CHECK(over[0] == Approx(0.1f));
    CHECK(over[1 * 4 + 1] == Approx(0.25f));
    CHECK(over[3 * 4 + 3] == Approx(0.4f));
    CHECK(over[0 * 4 + 3] == Approx(0.2f));
    test::require_close(over, brute_force_pixel_drops(overlapping, 4, 4), 1e-6, "overlapping pixel drops");
}

TEST_CASE("weights of another network are refused naming the array and both shapes", "[predictor]") {
    const std::string source = "the run 'inside'";
    const auto refusal = [](std::vector<io::NamedArray> weights) {
        return message_of<io::WeightsFileError>([&] { Predictor predictor(small_source(std::move(weights))); });
    };
    SECTION("a missing array") {
        std::vector<io::NamedArray> weights = small_weights();
        weights.erase(std::find_if(weights.begin(), weights.end(),
                                   [](const io::NamedArray& a) { return a.name == "bn.running_var"; }));
        CHECK_THAT(refusal(weights), Catch::Matchers::Contains(source) && Catch::Matchers::Contains("bn.running_var"));
    }
    SECTION("an array of another shape") {
        std::vector<io::NamedArray> weights = small_weights();
        for (io::NamedArray& a : weights)
            if (a.name == "conv1.weight") {
                a.dims = {4, channels, 5, 5};
                a.values = test::random_values(std::size_t(4 * channels * 25), 77);
            }
        CHECK_THAT(refusal(weights), Catch::Matchers::Contains(source) && Catch::Matchers::Contains("conv1") &&
                                         Catch::Matchers::Contains("4x3x5x5") && Catch::Matchers::Contains("4x3x3x3"));
    }
    SECTION("a Dense weight for another input size") {
        std::vector<io::NamedArray> weights = small_weights();
        for (io::NamedArray& a : weights)
            if (a.name == "fc1.weight") {
                a.dims = {ReferenceNetwork::hidden, 32};
                a.values = test::random_values(std::size_t(ReferenceNetwork::hidden * 32), 78);
            }
        CHECK_THAT(refusal(weights), Catch::Matchers::Contains("fc1") && Catch::Matchers::Contains("6x32") &&
                                         Catch::Matchers::Contains("6x64"));
    }
    SECTION("an array the network does not have") {
        std::vector<io::NamedArray> weights = small_weights();
        weights.push_back({"fc3.bias", {3}, test::random_values(3, 79)});
        CHECK_THAT(refusal(weights), Catch::Matchers::Contains("fc3.bias"));
    }
}

TEST_CASE("a predictor made from a saved weights file predicts as the one made from the arrays", "[predictor]") {
    test::TempDir folder("predictor");
    const std::filesystem::path file = folder.path() / "inside.h5";
    const std::vector<io::NamedArray> weights = small_weights();
    session::save_trained_weights(file, small_project(), small_card(), weights);

    const PredictorSource source = Predictor::from_file(file);
    CHECK(source.card.class_names == small_card().class_names);
    CHECK(source.card.normalization.mean == channel_mean);
    CHECK(source.card.normalization.stddev == channel_stddev);

    const std::vector<float> images = random_images(4, 61);
    Predictor from_arrays(small_source());
    Predictor from_file(source);
    const std::vector<std::vector<float>> expected = from_arrays.predict(images);
    const std::vector<std::vector<float>> actual = from_file.predict(images);
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) test::require_close(actual[i], expected[i], 1e-6, "probabilities");

    Predictor from_saved(Predictor::from_saved(session::read_saved_weights(file), small_project()));
    const std::vector<std::vector<float>> saved = from_saved.predict(images);
    REQUIRE(saved.size() == expected.size());
    for (std::size_t i = 0; i < saved.size(); ++i) test::require_close(saved[i], expected[i], 1e-6, "probabilities");

    CHECK_THAT(message_of<io::WeightsFileError>([&] { Predictor::from_file(folder.path() / "missing.h5"); }),
               Catch::Matchers::Contains("missing.h5"));
}

// A running run's weights are its checkpoint, written after every epoch: a predictor made from it
// looks at the network as it was then, while the run goes on.
TEST_CASE("a predictor made from a run's checkpoint predicts as the one made from the same arrays", "[predictor]") {
    test::TempDir folder("predictor-checkpoint");
    const std::filesystem::path file = folder.path() / "checkpoint.h5";
    const std::vector<io::NamedArray> weights = small_weights();
    session::save_checkpoint(file, small_project(), small_card(), weights, {},
                             session::CheckpointPosition{1, 0, 12, 0.01f});

    const std::vector<float> images = random_images(3, 62);
    Predictor from_arrays(small_source());
    Predictor from_checkpoint(Predictor::from_file(file));
    const std::vector<std::vector<float>> expected = from_arrays.predict(images);
    const std::vector<std::vector<float>> actual = from_checkpoint.predict(images);
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) test::require_close(actual[i], expected[i], 1e-6, "probabilities");
}
