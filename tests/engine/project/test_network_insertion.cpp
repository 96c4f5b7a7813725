// A palette double-click's insertion without the editor: where the new layer goes in the graph,
// which edge it takes over, and where it sits on the canvas (never on another node).
#include <catch2/catch.hpp>
#include <stdexcept>

#include "engine/project/network_edits.h"
#include "engine/project/project.h"

namespace {

using bps::model::CanvasPosition;
using bps::model::LayerSpec;
using bps::model::NetworkSpec;
using bps::project::insert_layer;
using bps::project::palette_entry;

// The studio's blank project: input at (40, 200) feeding a 10-unit output at (200, 200).
NetworkSpec blank() {
    NetworkSpec spec;
    spec.explicit_inputs = true;
    LayerSpec input = bps::model::input_layer("input");
    input.position = CanvasPosition{40, 200};
    LayerSpec output = bps::model::from(bps::model::dense("output", 10), {"input"});
    output.position = CanvasPosition{200, 200};
    spec.layers = {input, output};
    return spec;
}

const LayerSpec& layer(const NetworkSpec& spec, const std::string& name) {
    const int index = bps::project::layer_index(spec, name);
    REQUIRE(index >= 0);
    return spec.layers[static_cast<std::size_t>(index)];
}

std::vector<std::string> inputs(const NetworkSpec& spec, const std::string& name) {
    return layer(spec, name).inputs;
}

void check_no_overlap(const NetworkSpec& spec) {
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
        for (std::size_t j = i + 1; j < spec.layers.size(); ++j) {
            const CanvasPosition a = *spec.layers[i].position;
            const CanvasPosition b = *spec.layers[j].position;
            INFO(spec.layers[i].name << " at " << a.x << "," << a.y << " and " << spec.layers[j].name << " at " << b.x
                                     << "," << b.y);
            const bool apart = a.x + bps::project::node_width <= b.x || b.x + bps::project::node_width <= a.x ||
                               a.y + bps::project::node_height <= b.y || b.y + bps::project::node_height <= a.y;
            CHECK(apart);
        }
}

LayerSpec from_palette(const std::string& label) {
    return palette_entry(label)->layer;
}

}  // namespace

TEST_CASE("three double-clicks on a blank project build input, Flatten, Dense, Dense, output", "[edits]") {
    NetworkSpec spec = blank();
    const auto flatten = insert_layer(spec, from_palette("Flatten"), "");
    CHECK(flatten.name == "flatten1");
    CHECK(flatten.after == "input");
    CHECK(flatten.before == std::vector<std::string>{"output"});
    CHECK(flatten.moved == std::vector<std::string>{"output"});
    // The studio selects each new layer, so the next double-click goes after it.
    const auto fc = insert_layer(spec, from_palette("Dense"), flatten.name);
    const auto fc_next = insert_layer(spec, from_palette("Dense"), fc.name);
    CHECK(fc.name == "fc1");
    CHECK(fc_next.name == "fc2");
    CHECK(inputs(spec, "flatten1") == std::vector<std::string>{"input"});
    CHECK(inputs(spec, "fc1") == std::vector<std::string>{"flatten1"});
    CHECK(inputs(spec, "fc2") == std::vector<std::string>{"fc1"});
    CHECK(inputs(spec, "output") == std::vector<std::string>{"fc2"});
    // One row, a column apart, left to right in the order of the chain.
    CHECK(layer(spec, "flatten1").position->x == Approx(220));
    CHECK(layer(spec, "fc1").position->x == Approx(400));
    CHECK(layer(spec, "fc2").position->x == Approx(580));
    CHECK(layer(spec, "output").position->x == Approx(760));
    for (const LayerSpec& each : spec.layers) CHECK(each.position->y == Approx(200));
    check_no_overlap(spec);
}

TEST_CASE("with nothing selected the layer goes on the edge into the output", "[edits]") {
    NetworkSpec spec = blank();
    insert_layer(spec, from_palette("Flatten"), "");
    const auto fc = insert_layer(spec, from_palette("Dense"), "");
    CHECK(fc.after == "flatten1");
    CHECK(fc.before == std::vector<std::string>{"output"});
    CHECK(inputs(spec, "fc1") == std::vector<std::string>{"flatten1"});
    CHECK(inputs(spec, "output") == std::vector<std::string>{"fc1"});
    check_no_overlap(spec);
}

TEST_CASE("a selected output gets the new layer before it", "[edits]") {
    NetworkSpec spec = blank();
    const auto flatten = insert_layer(spec, from_palette("Flatten"), "output");
    CHECK(flatten.after == "input");
    CHECK(inputs(spec, "flatten1") == std::vector<std::string>{"input"});
    CHECK(inputs(spec, "output") == std::vector<std::string>{"flatten1"});
    check_no_overlap(spec);
}

TEST_CASE("a layer in the middle of a chain takes over its outgoing edge", "[edits]") {
    NetworkSpec spec = blank();
    insert_layer(spec, from_palette("Flatten"), "");
    insert_layer(spec, from_palette("Dense"), "flatten1");
    const auto dropout = insert_layer(spec, from_palette("Dropout"), "flatten1");
    CHECK(dropout.after == "flatten1");
    CHECK(dropout.before == std::vector<std::string>{"fc1"});
    CHECK(inputs(spec, "dropout1") == std::vector<std::string>{"flatten1"});
    CHECK(inputs(spec, "fc1") == std::vector<std::string>{"dropout1"});
    CHECK(inputs(spec, "output") == std::vector<std::string>{"fc1"});
    CHECK(layer(spec, "dropout1").position->x == Approx(400));
    CHECK(layer(spec, "fc1").position->x == Approx(580));
    check_no_overlap(spec);
}

TEST_CASE("a layer feeding two others puts the new layer before both, and the layout stays clear", "[edits]") {
    // input -> conv1 -> {conv2 -> add, add}: a residual block drawn by tidy_layout.
    NetworkSpec spec;
    spec.explicit_inputs = true;
    spec.layers = {bps::model::input_layer("input"),
                   bps::model::from(bps::model::conv2d("conv1", 4, 3), {"input"}),
                   bps::model::from(bps::model::conv2d("conv2", 4, 3), {"conv1"}),
                   bps::model::from(bps::model::add("add", {}), {"conv1", "conv2"}),
                   bps::model::from(bps::model::flatten("flatten"), {"add"}),
                   bps::model::from(bps::model::dense("output", 10), {"flatten"})};
    bps::project::tidy_layout(spec);
    const auto relu = insert_layer(spec, from_palette("ReLU"), "conv1");
    CHECK(relu.before == std::vector<std::string>{"conv2", "add"});
    CHECK(inputs(spec, "conv2") == std::vector<std::string>{relu.name});
    CHECK(inputs(spec, "add") == std::vector<std::string>{relu.name, "conv2"});
    check_no_overlap(spec);
}

TEST_CASE("an Input reads nothing and goes to a free place at the left", "[edits]") {
    NetworkSpec spec = blank();
    const auto input = insert_layer(spec, from_palette("Input"), "output");
    CHECK(input.name == "input1");
    CHECK(input.after.empty());
    CHECK(input.before.empty());
    CHECK(inputs(spec, "input1").empty());
    CHECK(inputs(spec, "output") == std::vector<std::string>{"input"});
    CHECK(layer(spec, "input1").position->x == Approx(40));
    check_no_overlap(spec);

    NetworkSpec empty;
    empty.explicit_inputs = true;
    insert_layer(empty, from_palette("Input"), "");
    const auto fc = insert_layer(empty, from_palette("Dense"), "");
    CHECK(inputs(empty, fc.name) == std::vector<std::string>{"input"});
    check_no_overlap(empty);
}

TEST_CASE("inserting after a layer that is not there is refused", "[edits]") {
    NetworkSpec spec = blank();
    CHECK_THROWS_AS(insert_layer(spec, from_palette("Dense"), "nowhere"), std::invalid_argument);
    CHECK(spec.layers.size() == 2);
}

TEST_CASE("an unfinished chain grows at its end, and a Dense with one unit per class stays last", "[edits]") {
    NetworkSpec spec;
    spec.explicit_inputs = true;
    std::string selected;
    for (const char* label : {"Input", "Flatten", "Dense", "Dense"})
        selected = insert_layer(spec, from_palette(label), selected, 10).name;
    CHECK(inputs(spec, "flatten1") == std::vector<std::string>{"input"});
    CHECK(inputs(spec, "fc1") == std::vector<std::string>{"flatten1"});
    CHECK(inputs(spec, "fc2") == std::vector<std::string>{"fc1"});  // 128 units: not the output
    check_no_overlap(spec);

    // fc2 with 10 units for 10 classes is the output: a ReLU selected-after goes before it.
    spec.layers.back().units = 10;
    const auto relu = insert_layer(spec, from_palette("ReLU"), "fc2", 10);
    CHECK(relu.after == "fc1");
    CHECK(inputs(spec, "fc2") == std::vector<std::string>{relu.name});
    // With nothing selected too.
    const auto dropout = insert_layer(spec, from_palette("Dropout"), "", 10);
    CHECK(dropout.after == relu.name);
    CHECK(inputs(spec, "fc2") == std::vector<std::string>{dropout.name});
    check_no_overlap(spec);
}
