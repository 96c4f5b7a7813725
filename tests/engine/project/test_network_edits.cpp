// The editor's rules without the editor: the palette, connections and why one is refused, names,
// the tidy layout and the clipboard.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "engine/project/network_edits.h"
#include "engine/project/project.h"

namespace {

using bps::model::LayerSpec;
using bps::model::LayerType;
using bps::model::NetworkSpec;

// input -> conv -> relu -> flatten -> fc, with every edge written out, as a project file has it.
NetworkSpec chain() {
    NetworkSpec spec;
    spec.explicit_inputs = true;
    spec.layers = {bps::model::input_layer("input"), bps::model::from(bps::model::conv2d("conv1", 4, 3), {"input"}),
                   bps::model::from(bps::model::activation("relu1", bps::model::Activation::relu), {"conv1"}),
                   bps::model::from(bps::model::flatten("flatten"), {"relu1"}),
                   bps::model::from(bps::model::dense("fc1", 10), {"flatten"})};
    return spec;
}

}  // namespace

TEST_CASE("the palette offers every layer type the engine has, in the issue's groups", "[edits]") {
    std::set<LayerType> types;
    for (const bps::project::PaletteEntry& entry : bps::project::palette()) {
        INFO(entry.label);
        types.insert(entry.layer.type);
        CHECK(!entry.description.empty());
        CHECK(bps::project::palette_entry(entry.label) == &entry);
    }
    CHECK(types.size() == 12);  // LayerType input .. concat
    CHECK(bps::project::palette_groups() ==
          std::vector<std::string>{"Input", "Core", "Convolution", "Pooling", "Normalisation", "Activation", "Merge"});
    CHECK(bps::project::palette_entry("Dense")->layer.units == 128);
    CHECK(bps::project::palette_entry("Dropout")->layer.rate == Approx(0.5f));
    CHECK(bps::project::palette_entry("Dense2") == nullptr);
}

TEST_CASE("connections that cannot work are refused with the reason", "[edits]") {
    const NetworkSpec spec = chain();
    using bps::project::connection_refusal;
    CHECK(connection_refusal(spec, "fc1", "fc1") == "a layer cannot read from itself");
    CHECK(connection_refusal(spec, "conv1", "input") ==
          "'input' is an Input layer and reads from no layer; the dataset feeds it");
    CHECK(connection_refusal(spec, "conv1", "relu1") == "'conv1' already feeds 'relu1'");
    CHECK(connection_refusal(spec, "input", "fc1") ==
          "'fc1' takes one input and already reads from 'flatten'; delete that connection first, or read both "
          "through an Add or Concatenate");
    CHECK(connection_refusal(spec, "fc1", "nowhere") == "'nowhere' is not a layer of this network");

    NetworkSpec loose = spec;
    loose.layers[1].inputs.clear();  // conv1 reads nothing now: fc1 -> conv1 would close a loop
    CHECK(connection_refusal(loose, "fc1", "conv1") ==
          "connecting 'fc1' to 'conv1' would make a cycle: 'conv1' already feeds 'fc1'");
    CHECK(connection_refusal(loose, "input", "conv1") == std::nullopt);

    // A merge takes several inputs; mismatched shapes are the report's business, not a refusal.
    NetworkSpec merge = spec;
    merge.layers.push_back(bps::model::from(bps::model::add("add1", {}), {"relu1"}));
    CHECK(connection_refusal(merge, "input", "add1") == std::nullopt);
}

TEST_CASE("names stay unique through new layers and renames, and edges follow a rename", "[edits]") {
    NetworkSpec spec = chain();
    CHECK(bps::project::unique_layer_name(spec, "conv") == "conv2");
    CHECK(bps::project::unique_layer_name(spec, "fc", "head") == "head");
    CHECK(bps::project::unique_layer_name(spec, "input", "input") == "input1");

    CHECK(bps::project::rename_layer(spec, "fc1", "conv1") == "a layer is already named 'conv1'; names must be unique");
    CHECK(bps::project::rename_layer(spec, "fc1", "") == "a layer needs a name");
    CHECK(bps::project::rename_layer(spec, "conv1", "features") == std::nullopt);
    CHECK(spec.layers[1].name == "features");
    CHECK(spec.layers[2].inputs == std::vector<std::string>{"features"});
}

TEST_CASE("removing layers removes the edges into and out of them", "[edits]") {
    NetworkSpec spec = chain();
    bps::project::remove_layers(spec, {"relu1", "nothing"});
    REQUIRE(spec.layers.size() == 4);
    CHECK(spec.layers[2].name == "flatten");
    CHECK(spec.layers[2].inputs.empty());
    CHECK(spec.layers[1].inputs == std::vector<std::string>{"input"});
}

TEST_CASE("tidy lays a branching graph out in columns by depth, each column centred", "[edits]") {
    NetworkSpec spec;
    spec.explicit_inputs = true;
    spec.layers = {bps::model::input_layer("input"), bps::model::from(bps::model::dense("a", 4), {"input"}),
                   bps::model::from(bps::model::dense("b", 4), {"input"}),
                   bps::model::from(bps::model::dense("c", 4), {"b"}),
                   bps::model::from(bps::model::add("sum", {}), {"a", "c"})};
    bps::project::tidy_layout(spec);
    auto at = [&](int i) { return *spec.layers[static_cast<std::size_t>(i)].position; };
    CHECK(at(0).x == Approx(40));
    CHECK(at(0).y == Approx(200));
    CHECK(at(1).x == Approx(220));  // a and b share column 1, one above the other around y = 200
    CHECK(at(2).x == Approx(220));
    CHECK(at(1).y == Approx(145));
    CHECK(at(2).y == Approx(255));
    CHECK(at(3).x == Approx(400));
    CHECK(at(4).x == Approx(580));  // after its deepest input, c
}

TEST_CASE("copied layers paste with fresh names, their own edges and moved positions", "[edits]") {
    NetworkSpec spec = chain();
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
        spec.layers[i].position = bps::model::CanvasPosition{10.0 * static_cast<double>(i), 5.0};
    const std::string clipboard = bps::project::layers_to_clipboard(spec, {"conv1", "relu1"});
    const std::vector<std::string> names = bps::project::paste_layers(spec, clipboard, 40, 40);
    CHECK(names == std::vector<std::string>{"conv2", "relu2"});
    REQUIRE(spec.layers.size() == 7);
    const LayerSpec& conv = spec.layers[5];
    const LayerSpec& relu = spec.layers[6];
    CHECK(conv.inputs.empty());  // its input was not copied
    CHECK(conv.units == 4);
    CHECK(relu.inputs == std::vector<std::string>{"conv2"});
    CHECK(conv.position->x == Approx(50));
    CHECK(conv.position->y == Approx(45));
    CHECK_THROWS_AS(bps::project::paste_layers(spec, "not json", 0, 0), bps::project::ProjectError);
}
