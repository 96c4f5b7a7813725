// 1x1 convolutions in weights files and checkpoints. A parameter's saved dims come from the layer
// that owns it, not from its tensor's shape, where a 1x1 Conv2D weight {out, in, 1, 1} looks like a
// Dense weight and one with a single filter like a per-channel vector. A network with 1x1
// convolutions (one from a single channel, one mixing channels, one down to a single filter), a
// Dense after a 1x1 feature map and a Dense of one unit downloads its parameters with the layers'
// dims, saves them as a weights file and as a checkpoint (with Adam's state), reads them back and
// uploads them into a fresh network: every value comes back exactly, and both files predict.
#include <catch2/catch.hpp>
#include <map>

#include "engine/io/network_weights.h"
#include "engine/runs/checkpoint.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/predictor.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/test_device.h"
#include "tests/support/temp_dir.h"

using namespace bps;

namespace {

const datasets::ImageShape image_shape{1, 3, 3};

project::Project pointwise_project() {
    project::Project project;
    project.name = "pointwise";
    project.network.layers = {
        model::input_layer(),          model::conv2d("widen", 3, 1),  // 1x1 from one channel: {3, 1, 1, 1}
        model::conv2d("mix", 3, 1),                                   // 1x1 square: {3, 3, 1, 1}
        model::conv2d("narrow", 1, 1),                                // 1x1 to one filter: {1, 3, 1, 1}
        model::conv2d("conv", 4, 3),                                  // 3x3 'valid' on 3x3: a 1x1 feature map
        model::batch_norm("bn"),       model::flatten("flatten"),    model::dense("single", 1),  // one unit: {1, 4}
        model::dense("fc", 2)};
    project.training.optimizer.kind = train::OptimizerKind::adam;
    return project;
}

session::ModelCard pointwise_card() {
    session::ModelCard card;
    card.project = "pointwise";
    card.shape = image_shape;
    card.class_names = {"dark", "light"};
    return card;
}

model::Network make_network(ops::Runtime& runtime, std::uint64_t seed) {
    train::OptimizerSettings optimizer;
    optimizer.kind = train::OptimizerKind::adam;
    return model::Network(runtime, project::project_network(pointwise_project(), image_shape), 2, optimizer, seed);
}

// Random values in every array, so that a value landing in the wrong place shows.
std::vector<io::NamedArray> randomised(std::vector<io::NamedArray> arrays, std::uint32_t seed) {
    for (io::NamedArray& array : arrays) array.values = test::random_values(array.values.size(), seed++, 0.1f, 0.9f);
    return arrays;
}

std::map<std::string, std::vector<int>> dims_by_name(const std::vector<io::NamedArray>& arrays) {
    std::map<std::string, std::vector<int>> dims;
    for (const io::NamedArray& array : arrays) dims[array.name] = array.dims;
    return dims;
}

void check_same(const std::vector<io::NamedArray>& actual, const std::vector<io::NamedArray>& expected) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        INFO(expected[i].name);
        CHECK(actual[i].name == expected[i].name);
        CHECK(actual[i].dims == expected[i].dims);
        CHECK(actual[i].values == expected[i].values);
    }
}

std::vector<io::NamedArray> optimizer_state(ops::Runtime& runtime, const model::Network& network) {
    std::vector<io::NamedArray> state;
    for (const model::ParameterView& view : network.optimizer_state())
        state.push_back({view.name, view.dims, runtime.read(view.value)});
    return state;
}

}  // namespace

TEST_CASE("1x1 convolutions save, load, checkpoint and predict with the dims their layers declare", "[weights]") {
    ops::Runtime runtime(test::test_device());
    model::Network network = make_network(runtime, 3);
    const std::vector<io::NamedArray> weights = randomised(io::download_parameters(runtime, network), 100);
    io::upload_parameters(runtime, network, weights, "the random weights");
    check_same(io::download_parameters(runtime, network), weights);

    const std::map<std::string, std::vector<int>> dims = dims_by_name(weights);
    CHECK(dims.at("widen.weight") == std::vector<int>{3, 1, 1, 1});
    CHECK(dims.at("mix.weight") == std::vector<int>{3, 3, 1, 1});
    CHECK(dims.at("narrow.weight") == std::vector<int>{1, 3, 1, 1});
    CHECK(dims.at("narrow.bias") == std::vector<int>{1});
    CHECK(dims.at("conv.weight") == std::vector<int>{4, 1, 3, 3});
    CHECK(dims.at("bn.running_var") == std::vector<int>{4});
    CHECK(dims.at("single.weight") == std::vector<int>{1, 4});
    CHECK(dims.at("fc.weight") == std::vector<int>{2, 1});
    CHECK(dims.at("fc.bias") == std::vector<int>{2});
    // Adam's two moments have their parameter's dims.
    const std::vector<io::NamedArray> state = randomised(optimizer_state(runtime, network), 200);
    REQUIRE(state.size() == 2 * 14);  // BatchNorm's running statistics are not trained
    for (const io::NamedArray& array : state) {
        INFO(array.name);
        CHECK(array.dims == dims.at(array.name.substr(0, array.name.rfind(".state"))));
    }

    test::TempDir folder("conv1x1");
    const project::Project project = pointwise_project();
    const session::ModelCard card = pointwise_card();
    const std::filesystem::path weights_file = folder.path() / "weights.h5";
    const std::filesystem::path checkpoint_file = folder.path() / "checkpoint.h5";
    session::save_trained_weights(weights_file, project, card, weights);
    session::save_checkpoint(checkpoint_file, project, card, weights, state,
                             session::CheckpointPosition{1, 0, 7, 0.001f});

    const session::SavedWeights saved = session::read_saved_weights(weights_file);
    const std::vector<io::NamedArray> from_weights = session::weights_for_network(saved, project, image_shape);
    check_same(from_weights, weights);
    const session::Checkpoint checkpoint = session::read_checkpoint(checkpoint_file);
    check_same(session::weights_for_network(checkpoint.weights, project, image_shape), weights);
    check_same(checkpoint.optimizer_state, state);

    // A fresh network (other initial values) takes the file's weights and gives them back exactly.
    model::Network fresh = make_network(runtime, 4);
    io::upload_parameters(runtime, fresh, from_weights, weights_file.string());
    check_same(io::download_parameters(runtime, fresh), weights);

    // Both files predict as the arrays do.
    const std::vector<float> images = test::random_values(3 * 9, 7, 0.0f, 1.0f);
    session::Predictor from_arrays(session::PredictorSource{project, card, weights, "the arrays"});
    const std::vector<std::vector<float>> expected = from_arrays.predict(images);
    for (const std::filesystem::path& file : {weights_file, checkpoint_file}) {
        INFO(file);
        session::Predictor from_file(session::Predictor::from_file(file));
        const std::vector<std::vector<float>> actual = from_file.predict(images);
        REQUIRE(actual.size() == expected.size());
        for (std::size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == expected[i]);
    }
}
