// The model card a weights file carries: what `backprop predict` needs besides the weights.
#include <catch2/catch.hpp>

#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/runs/model_card.h"
#include "engine/runs/saved_weights.h"
#include "tests/support/temp_dir.h"

using namespace bps;

TEST_CASE("a model card survives a weights file round trip", "[session][weights]") {
    session::ModelCard card;
    card.project = "cnn";
    card.shape = datasets::ImageShape{3, 32, 24};
    card.class_names = {"cat", "dog", "bird"};
    card.normalization.mean = {0.25f, 0.5f, 0.125f};
    card.normalization.stddev = {0.75f, 0.5f, 0.375f};
    test::TempDir dir("model-card");
    const std::filesystem::path file = dir.path() / "w.h5";
    io::WeightsFile contents;
    contents.layers = {{"fc", {{"bias", {2}, {1.5f, -2.0f}}}}};
    contents.model_card = session::model_card_json(card);
    io::save_weights_file(file, contents);

    const session::ModelCard read = session::parse_model_card(io::read_weights_file(file).model_card, file.string());
    CHECK(read.project == "cnn");
    CHECK(read.shape.channels == 3);
    CHECK(read.shape.height == 32);
    CHECK(read.shape.width == 24);
    CHECK(read.class_names == card.class_names);
    CHECK(read.normalization.mean == card.normalization.mean);
    CHECK(read.normalization.stddev == card.normalization.stddev);
}

TEST_CASE("weights without a model card are refused with what to do", "[session][weights]") {
    const std::string message =
        "w.h5: does not say which images and classes it was trained on; save it again with "
        "'backprop train --save-weights'";
    for (const std::string& text : {std::string(), std::string("my weights"), std::string("{\"project\": \"x\"}"),
                                    std::string("{\"project\": \"x\", \"shape\": [1, 0, 28], \"class_names\": [], "
                                                "\"normalization\": {\"mean\": [], \"stddev\": []}}")}) {
        INFO(text);
        REQUIRE_THROWS_MATCHES(session::parse_model_card(text, "w.h5"), io::WeightsFileError,
                               Catch::Matchers::Message(message));
    }
}

TEST_CASE("a model card that does not fit the network stored beside it is the weights file's fault",
          "[session][weights]") {
    // Cards as a damaged or hand-edited file may hold them, beside the mlp example (1x28x28, 10 classes).
    session::ModelCard card;
    card.project = "mlp";
    card.class_names = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    std::string expected;
    SECTION("two channels") {
        card.shape = datasets::ImageShape{2, 28, 28};
        expected = "says its network was trained on 2x28x28 images, which its own weights do not fit (";
    }
    SECTION("three classes") {
        card.shape = datasets::ImageShape{1, 28, 28};
        card.class_names = {"a", "b", "c"};
        expected =
            "says its network was trained on 1x28x28 images in 3 classes, which the network it holds cannot "
            "take (the output 'fc2' has 10 units but the dataset has 3 classes); the file is damaged, so save "
            "the weights again";
    }
    SECTION("no classes") {
        card.shape = datasets::ImageShape{1, 28, 28};
        card.class_names.clear();
        expected = "says its network was trained on 1x28x28 images in 0 classes";
    }
    test::TempDir dir("model-card-misfit");
    const std::filesystem::path file = dir.path() / "w.h5";
    // The mlp's own weights with the card it was trained with, saved as training saves them; then
    // the card is swapped for the misfit one.
    const project::Project mlp = project::example_project("mlp");
    session::ModelCard trained;
    trained.project = "mlp";
    trained.shape = datasets::ImageShape{1, 28, 28};
    trained.class_names = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    const auto array = [](std::string name, std::vector<int> dims) {
        std::size_t count = 1;
        for (const int dim : dims) count *= static_cast<std::size_t>(dim);
        return io::NamedArray{std::move(name), std::move(dims), std::vector<float>(count, 0.25f)};
    };
    const std::vector<io::NamedArray> arrays = {array("fc1.weight", {256, 784}), array("fc1.bias", {256}),
                                                array("fc2.weight", {10, 256}), array("fc2.bias", {10})};
    io::WeightsFile contents = session::trained_weights_file(mlp, trained, arrays, file);
    io::save_weights_file(file, contents);
    REQUIRE_NOTHROW(session::read_saved_weights(file));  // the file as trained reads
    contents.model_card = session::model_card_json(card);
    io::save_weights_file(file, contents);
    REQUIRE_THROWS_AS(session::read_saved_weights(file), io::WeightsFileError);
    REQUIRE_THROWS_WITH(session::read_saved_weights(file), Catch::StartsWith(file.string() + ": " + expected));
}
