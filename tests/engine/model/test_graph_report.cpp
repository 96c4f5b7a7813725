// The editor's report of a graph that may be broken: every problem at once, each on its own node,
// and shapes wherever they can be told.
#include <catch2/catch.hpp>
#include <map>

#include "engine/compare/reference_networks.h"
#include "engine/model/graph_analysis.h"
#include "engine/model/graph_report.h"
#include "engine/project/project.h"
#include "tests/engine/model/spec_of.h"

using namespace bps;
using namespace bps::model;

namespace {
using bps::test::spec_of;

using Problems = std::vector<std::string>;

// A network with three problems of its own and nodes downstream of them.
NetworkSpec broken_network() {
    return spec_of({1, 1, 8, 8}, {input_layer(),                                               // 0
                                  conv2d("conv1", 4, 3),                                       // 1
                                  dense("fc1", 10),                                            // 2
                                  from(activation("act1", model::Activation::relu), {"fc1"}),  // 3
                                  from(dense("side", 4), {"missing"}),                         // 4
                                  from(flatten("flat"), {"conv1"}),                            // 5
                                  from(dropout("drop", 1.5f), {"flat"}),                       // 6
                                  concat("cat", {"act1", "drop", "side"}),                     // 7
                                  dense("out", 10)});                                          // 8
}
}  // namespace

TEST_CASE("a broken graph reports every problem on its own node", "[graph]") {
    const GraphReport report = analyse_graph_report(broken_network());
    REQUIRE(report.nodes.size() == 9);
    CHECK_FALSE(report.ok());
    CHECK(report.network_problems.empty());

    const std::string side = "Dense 'side' reads from 'missing', which is not a layer of this network";
    const std::string fc1 = "Dense 'fc1' needs a flat input; add a Flatten before it";
    const std::string drop = "Dropout 'drop' needs a rate from 0 up to (not including) 1";
    CHECK(report.nodes[4].problems == Problems{side});
    CHECK(report.nodes[2].problems == Problems{fc1});
    CHECK(report.nodes[6].problems == Problems{drop});
    REQUIRE(report.problems.size() == 3);
    // Connections are checked before shapes, as analyse_graph always has.
    CHECK(report.problems[0].node == 4);
    CHECK(report.problems[0].message == side);

    // The nodes before the problems have their shapes and costs.
    CHECK(report.nodes[0].output == Shape{1, 1, 8, 8});
    CHECK(report.nodes[1].output == Shape{1, 4, 6, 6});
    CHECK(report.nodes[1].parameters == 4 * 9 + 4);
    CHECK(report.nodes[5].output == Shape{1, 144, 1, 1});
    for (int ok : {0, 1, 5}) {
        INFO(ok);
        CHECK(report.nodes[ok].ok());
        CHECK_FALSE(report.nodes[ok].input_has_problem);
    }
    // A node with a problem of its own has no shape.
    for (int broken : {2, 4, 6}) {
        INFO(broken);
        CHECK_FALSE(report.nodes[broken].output);
        CHECK_FALSE(report.nodes[broken].input_has_problem);
        CHECK(report.nodes[broken].shape_text() == "unknown");
    }
    // Downstream nodes have no shape and no error of their own: the root cause is upstream.
    for (int downstream : {3, 7, 8}) {
        INFO(downstream);
        CHECK_FALSE(report.nodes[downstream].output);
        CHECK(report.nodes[downstream].input_has_problem);
        CHECK(report.nodes[downstream].problems.empty());
        CHECK(report.nodes[downstream].shape_text() == "unknown because its input has a problem");
        CHECK(report.nodes[downstream].parameters == 0);
    }
    CHECK(report.output == 8);
}

TEST_CASE("the throwing analysis gives the report's first problem", "[graph]") {
    REQUIRE_THROWS_MATCHES(
        analyse_graph(broken_network()), ModelError,
        Catch::Matchers::Message("Dense 'side' reads from 'missing', which is not a layer of this network"));
    NetworkSpec mismatched = bench::reference_network("mlp");
    mismatched.layers.back().units = 5;
    const GraphReport report = analyse_graph_report(mismatched, 10);
    REQUIRE_FALSE(report.ok());
    REQUIRE_THROWS_MATCHES(checked_analysis(mismatched, report), ModelError,
                           Catch::Matchers::Message(report.problems.front().message));
}

TEST_CASE("a cycle is reported on every node on it", "[graph]") {
    const NetworkSpec spec =
        spec_of({1, 4, 1, 1}, {input_layer(), from(add("a", {"input", "c"}), {"input", "c"}),
                               from(dense("b", 4), {"a"}), from(dense("c", 4), {"b"}), from(dense("out", 2), {"a"})});
    const GraphReport report = analyse_graph_report(spec);
    CHECK(report.nodes[1].problems == Problems{"the graph has a cycle through 'a'"});
    CHECK(report.nodes[2].problems == Problems{"the graph has a cycle through 'b'"});
    CHECK(report.nodes[3].problems == Problems{"the graph has a cycle through 'c'"});
    REQUIRE(report.problems.size() == 3);
    CHECK(report.problems[0].message == "the graph has a cycle through 'a'");
    CHECK(report.nodes[0].ok());
    CHECK(report.nodes[4].problems.empty());
    CHECK(report.nodes[4].input_has_problem);
    CHECK(report.execution_order == std::vector<int>{0});
}

TEST_CASE("a node not connected to the output is reported and keeps its shape", "[graph]") {
    const NetworkSpec spec =
        spec_of({1, 1, 4, 4}, {input_layer(), flatten("f"), dense("side", 3), from(dense("out", 10), {"f"})});
    const GraphReport report = analyse_graph_report(spec);
    CHECK(report.nodes[2].problems == Problems{"Dense 'side' is not connected to the output; connect it or remove it"});
    CHECK(report.nodes[2].output == Shape{1, 3, 1, 1});
    REQUIRE(report.problems.size() == 1);
    CHECK(report.problems[0].node == 2);
    CHECK(report.output == 3);
    CHECK(report.nodes[3].ok());
}

TEST_CASE("an Add of different shapes is reported on the Add while the other nodes get shapes", "[graph]") {
    const NetworkSpec spec = spec_of({1, 4, 1, 1}, {input_layer(), dense("a", 3), from(dense("b", 5), {"input"}),
                                                    add("sum", {"a", "b"}), dense("out", 2)});
    const GraphReport report = analyse_graph_report(spec);
    CHECK(report.nodes[3].problems ==
          Problems{"Add 'sum' needs inputs of the same shape: 'a' gives (3), 'b' gives (5)"});
    CHECK_FALSE(report.nodes[3].output);
    CHECK(report.nodes[0].output == Shape{1, 4, 1, 1});
    CHECK(report.nodes[1].output == Shape{1, 3, 1, 1});
    CHECK(report.nodes[1].trainable_parameters == 5 * 3);
    CHECK(report.nodes[2].output == Shape{1, 5, 1, 1});
    CHECK(report.nodes[4].input_has_problem);
    CHECK(report.problems.size() == 1);
}

TEST_CASE("a classifier's output is checked against the dataset's classes", "[graph]") {
    NetworkSpec spec = bench::reference_network("mlp");
    spec.layers.back().units = 5;
    const int last = static_cast<int>(spec.layers.size()) - 1;
    CHECK(analyse_graph_report(spec).ok());  // classes unknown
    CHECK(analyse_graph_report(spec, 5).ok());
    const GraphReport report = analyse_graph_report(spec, 10);
    CHECK(report.nodes[last].problems == Problems{"the output 'fc2' has 5 units but the dataset has 10 classes"});
    CHECK(report.nodes[last].output == Shape{1, 5, 1, 1});  // the shape is known; it is the wrong one
    CHECK(report.problems.size() == 1);
    // A regression predicts whatever it predicts.
    spec.loss = LossKind::mean_squared_error;
    CHECK(analyse_graph_report(spec, 10).ok());

    // Through a project, with the input shape from the dataset.
    const project::Project mlp = project::example_project("mlp");
    const datasets::ImageShape fashion_mnist{1, 28, 28};
    CHECK(project::project_report(mlp, fashion_mnist, 10).ok());
    CHECK(project::project_report(mlp, fashion_mnist, std::nullopt).ok());
    const GraphReport wrong = project::project_report(mlp, fashion_mnist, 100);
    REQUIRE(wrong.problems.size() == 1);
    CHECK(wrong.problems[0].node == static_cast<int>(mlp.network.layers.size()) - 1);
    CHECK(wrong.problems[0].message == "the output 'fc2' has 10 units but the dataset has 100 classes");
    CHECK(project::project_report(mlp, {3, 32, 32}, 10).nodes[0].output == Shape{1, 3, 32, 32});
}

TEST_CASE("the classifier's output must be flat with at least two units", "[graph]") {
    const GraphReport image = analyse_graph_report(spec_of({1, 1, 6, 6}, {input_layer(), conv2d("c", 3, 3)}));
    CHECK(image.nodes[1].problems ==
          Problems{"the output Conv2D 'c' gives (3, 4, 4); a classifier must end in flat class scores (add Flatten "
                   "and a Dense layer)"});
    const GraphReport one = analyse_graph_report(spec_of({1, 4, 1, 1}, {input_layer(), dense("out", 1)}), 1);
    CHECK(one.nodes[1].problems ==
          Problems{"the output Dense 'out' has 1 unit; a classifier needs one unit per class (at least 2)"});
}

TEST_CASE("problems of names, connections and Input layers are each reported", "[graph]") {
    SECTION("an empty network") {
        const GraphReport report = analyse_graph_report(spec_of({1, 4, 1, 1}, {}));
        CHECK(report.nodes.empty());
        CHECK(report.network_problems == Problems{"the network has no layers"});
        REQUIRE(report.problems.size() == 1);
        CHECK_FALSE(report.problems[0].node);
    }
    SECTION("no Input layer") {
        const GraphReport report = analyse_graph_report(spec_of({1, 4, 1, 1}, {flatten("f"), dense("out", 2)}));
        CHECK(report.nodes[0].problems ==
              Problems{"Flatten 'f' has no input; the network must start with an Input layer"});
        CHECK(report.network_problems == Problems{"the network has no Input layer"});
        CHECK(report.nodes[1].input_has_problem);
        CHECK(report.problems.size() == 2);
    }
    SECTION("two Input layers, duplicate names and wrong input counts at once") {
        const NetworkSpec spec =
            spec_of({1, 4, 1, 1}, {input_layer(), dense("fc", 3), dense("fc", 3), input_layer("second"),
                                   from(dense("two", 3), {"input", "second"}), from(add("sum", {"fc"}), {"fc"}),
                                   concat("cat", {"two", "sum"}), dense("out", 2)});
        const GraphReport report = analyse_graph_report(spec);
        const std::string duplicate = "two layers are named 'fc'; names must be unique";
        CHECK(report.nodes[1].problems == Problems{duplicate});
        // The second 'fc' also leads nowhere: 'sum' reads the first.
        CHECK(report.nodes[2].problems ==
              Problems{duplicate, "Dense 'fc' is not connected to the output; connect it or remove it"});
        CHECK(report.nodes[3].problems == Problems{"the network has more than one Input layer"});
        CHECK(report.nodes[4].problems == Problems{"Dense 'two' takes exactly one input, not 2"});
        CHECK(report.nodes[5].problems == Problems{"Add 'sum' needs at least two inputs"});
        CHECK(report.nodes[6].input_has_problem);
        CHECK(report.nodes[7].input_has_problem);
        CHECK(report.network_problems.empty());
        REQUIRE(report.problems.size() == 6);
        CHECK(report.problems[0].message == duplicate);
        REQUIRE_THROWS_MATCHES(analyse_graph(spec), ModelError, Catch::Matchers::Message(duplicate));
    }
    SECTION("an empty input shape") {
        const GraphReport report =
            analyse_graph_report(spec_of({1, 0, 3, 3}, {input_layer(), flatten("f"), dense("out", 2)}));
        REQUIRE(report.network_problems.size() == 1);
        CHECK(report.network_problems[0].rfind("the network's input has an empty or negative dimension", 0) == 0);
        CHECK(report.nodes[0].input_has_problem);
        CHECK(report.nodes[0].problems.empty());
        CHECK(report.nodes[2].input_has_problem);
    }
}

TEST_CASE("a valid network's report gives the same figures as the analysis", "[graph]") {
    const NetworkSpec spec = bench::reference_network("cnn");
    const GraphReport report = analyse_graph_report(spec, 10);
    const GraphAnalysis analysis = analyse_graph(spec);
    REQUIRE(report.ok());
    REQUIRE(report.nodes.size() == spec.layers.size());
    REQUIRE(analysis.layers.size() == spec.layers.size());
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const NodeReport& node = report.nodes[i];
        const LayerAnalysis& layer = analysis.layers[i];  // the cnn is listed in execution order
        INFO(layer.spec.name);
        CHECK(layer.spec.name == spec.layers[i].name);
        CHECK(node.ok());
        CHECK(node.output == layer.output);
        CHECK(node.parameters == layer.parameters);
        CHECK(node.trainable_parameters == layer.trainable_parameters);
        CHECK(node.flops == layer.flops);
        CHECK(node.activation_bytes == layer.activation_bytes);
    }
    CHECK(report.output == static_cast<int>(spec.layers.size()) - 1);
}

TEST_CASE("the report follows the spec's order when the layers are listed out of execution order", "[graph]") {
    // The residual block is listed with the Add before its second branch.
    const NetworkSpec spec = spec_of({1, 2, 6, 6}, {input_layer(), conv2d("stem", 4, 3, 1, model::Padding::same),
                                                    from(add("sum", {"stem", "branch"}), {"stem", "branch"}),
                                                    from(conv2d("branch", 4, 3, 1, model::Padding::same), {"stem"}),
                                                    from(global_avg_pool("gap"), {"sum"}), dense("out", 3)});
    const GraphReport report = analyse_graph_report(spec);
    REQUIRE(report.ok());
    CHECK(report.nodes[2].inputs == std::vector<int>{1, 3});
    CHECK(report.nodes[2].output == Shape{1, 4, 6, 6});
    CHECK(report.nodes[3].output == Shape{1, 4, 6, 6});
    CHECK(report.nodes[3].parameters == (4 * 9 + 1) * 4);
    CHECK(report.nodes[4].output == Shape{1, 4, 1, 1});
    CHECK(report.execution_order == std::vector<int>{0, 1, 3, 2, 4, 5});

    // The analysis is in execution order, its inputs indices into it.
    const GraphAnalysis analysis = analyse_graph(spec);
    std::map<std::string, const LayerAnalysis*> by_name;
    for (const LayerAnalysis& layer : analysis.layers) by_name[layer.spec.name] = &layer;
    CHECK(analysis.layers[3].spec.name == "sum");
    CHECK(analysis.layers[3].inputs == std::vector<int>{1, 2});
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        INFO(spec.layers[i].name);
        CHECK(report.nodes[i].output == by_name.at(spec.layers[i].name)->output);
        CHECK(report.nodes[i].flops == by_name.at(spec.layers[i].name)->flops);
    }
}

TEST_CASE("sizes past what one tensor holds are problems of their layer, counted without wrapping", "[graph]") {
    SECTION("an input of 10^10 pixels") {
        const GraphReport report =
            analyse_graph_report(spec_of({1, 1, 100000, 100000}, {input_layer(), flatten("flat"), dense("out", 10)}));
        REQUIRE(report.problems.size() == 1);
        CHECK(
            report.nodes[0].problems ==
            Problems{"Input 'input': its output (1, 100000, 100000) holds 10000000000 values per image, more than one "
                     "tensor can hold (2147483647); use smaller images"});
        CHECK_FALSE(report.nodes[1].output.has_value());  // nothing downstream is shown with a wrapped size
    }
    SECTION("a Dense whose weights pass 2^31 values") {
        // 784 x 3,000,000 = 2,352,000,000 weights.
        const GraphReport report =
            analyse_graph_report(spec_of({1, 1, 28, 28}, {input_layer(), flatten("flat"), dense("out", 3000000)}));
        REQUIRE(report.problems.size() == 1);
        CHECK(report.nodes[2].problems ==
              Problems{"Dense 'out': it has 2352000000 weights, more than one tensor can hold (2147483647); use fewer "
                       "units or filters, or a smaller input"});
    }
    SECTION("a Conv2D whose kernel and filters multiply past 64 bits") {
        LayerSpec wide = conv2d("wide", 2000000000, 1);
        wide.conv.kernel_h = wide.conv.kernel_w = 2000000000;
        wide.conv.padding = Padding::same;
        const GraphReport report = analyse_graph_report(spec_of({1, 2000000000, 1, 1}, {input_layer(), wide}));
        REQUIRE_FALSE(report.ok());
        CHECK_THAT(report.problems.front().message, Catch::StartsWith("Conv2D 'wide': it has more than 2^64 weights, "
                                                                      "more than one tensor can hold"));
    }
    SECTION("a Concat whose channels add up past int") {
        const GraphReport report = analyse_graph_report(
            spec_of({1, 1500000000, 1, 1},
                    {input_layer(), from(activation("a", model::Activation::relu), {"input"}),
                     from(activation("b", model::Activation::relu), {"input"}), concat("cat", {"a", "b"})}));
        REQUIRE_FALSE(report.ok());
        CHECK(report.nodes[3].problems ==
              Problems{"Concatenate 'cat' joins 3000000000 channels, more than one tensor can hold (2147483647)"});
    }
}
