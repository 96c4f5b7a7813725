// The model card a weights file carries: what `backprop predict` needs besides the weights.
#include <catch2/catch.hpp>

#include "engine/io/weights_file.h"
#include "engine/session/model_card.h"
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
