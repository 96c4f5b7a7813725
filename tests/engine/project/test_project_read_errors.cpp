// What a learner reads when a project file cannot be opened: whole messages, file name included.
#include <catch2/catch.hpp>

#include "datasets/catalogue.h"
#include "tests/engine/project/project_test_support.h"
#include "tests/support/temp_dir.h"

using bps::test::invalid_projects_dir;
using bps::test::parse_error;
using bps::test::read_error;

namespace {

// A small valid project with `network`, `dataset` and `training` members replaced as given (JSON text).
std::string project_with(const std::string& network, const std::string& dataset = "{}",
                         const std::string& training = "{}") {
    return R"({"format": "backprop-studio-project", "version": 1, "network": )" + network + R"(, "dataset": )" +
           dataset + R"(, "training": )" + training + "}";
}

const std::string chain_edges = R"([{"from": "input", "to": "flatten"}, {"from": "flatten", "to": "fc1"}])";

std::string network_with_fc1(const std::string& fc1_params) {
    return R"({"nodes": [{"name": "input", "type": "Input"}, {"name": "flatten", "type": "Flatten"},
                         {"name": "fc1", "type": "Dense", "params": )" +
           fc1_params + R"(}], "edges": )" + chain_edges + "}";
}

const std::string good_network = network_with_fc1(R"({"units": 10})");

}  // namespace

TEST_CASE("project files that are not projects or not this version are refused by name", "[project]") {
    const auto dir = invalid_projects_dir();
    const std::string damaged = (dir / "damaged.json").string();
    // The trailing comma after "broken" is found at the '}' that starts line 5.
    CHECK(read_error(dir / "damaged.json") ==
          damaged + ": is not valid JSON (line 5, column 1: unexpected '}'; expected string literal)");
    CHECK(parse_error("{\n  \"format\": ") ==
          "p.json: is not valid JSON (line 2, column 13: unexpected end of input; expected '[', '{', or a literal)");
    CHECK(parse_error("[1, 2,\n  3 x]") ==
          "p.json: is not valid JSON (line 2, column 5: invalid literal; last read: "
          "'3 x'; expected ']')");

    const std::string not_ours = ": is not a Backprop Studio project (no \"format\": \"backprop-studio-project\")";
    CHECK(read_error(dir / "not_a_project.json") == (dir / "not_a_project.json").string() + not_ours);
    CHECK(parse_error("[1, 2]") == "p.json" + not_ours);
    CHECK(parse_error(R"({"format": "keras"})") == "p.json" + not_ours);

    CHECK(read_error(dir / "newer_version.json") ==
          (dir / "newer_version.json").string() +
              ": was saved by a newer Backprop Studio (project version 2); this version opens version 1 and older");
    CHECK(parse_error(R"({"format": "backprop-studio-project"})") ==
          "p.json: has no \"version\"; a project file says which version of the format it uses");
    CHECK(parse_error(R"({"format": "backprop-studio-project", "version": "1"})") ==
          "p.json: version must be a whole number, not \"1\"");
    CHECK(parse_error(R"({"format": "backprop-studio-project", "version": 1})") ==
          "p.json: has no \"network\"; a project needs at least an Input node");
}

TEST_CASE("a missing project file and a folder are named in the message", "[project]") {
    bps::test::TempDir temp("project-read");
    const auto missing = temp.path() / "nothing-here.json";
    CHECK(read_error(missing) == missing.string() + ": the file does not exist");
    CHECK(read_error(temp.path()) == temp.path().string() + ": is a folder, not a project file");
}

TEST_CASE("mistyped project fields name their path and show the value", "[project]") {
    CHECK(parse_error(project_with(good_network, "{}", R"({"batch_size": "64"})")) ==
          "p.json: training.batch_size must be a whole number, not \"64\"");
    CHECK(parse_error(project_with(good_network, "{}", R"({"batch_size": 0})")) ==
          "p.json: training.batch_size must be a whole number of at least 1, not 0");
    CHECK(parse_error(project_with(good_network, "{}", R"({"epochs": 2.5})")) ==
          "p.json: training.epochs must be a whole number, not 2.5");
    CHECK(parse_error(project_with(good_network, "{}", R"({"epochs": 0})")) ==
          "p.json: training.epochs must be a whole number of at least 1, not 0");
    CHECK(parse_error(project_with(good_network, "{}", R"({"optimizer": {"learning_rate": 0}})")) ==
          "p.json: training.optimizer.learning_rate must be a number above 0 and at most 10, not 0");
    CHECK(parse_error(project_with(good_network, "{}", R"({"optimizer": {"nesterov": 1}})")) ==
          "p.json: training.optimizer.nesterov must be true or false, not 1");
    CHECK(parse_error(project_with(good_network, "{}", R"({"optimizer": "adam"})")) ==
          "p.json: training.optimizer must be an object ({...}), not \"adam\"");
    CHECK(parse_error(project_with(good_network, "{}", R"({"optimizer": {"type": "rmsprop"}})")) ==
          "p.json: training.optimizer.type is 'rmsprop', which is not an optimizer; the choices are sgd, adam, adamw");
    CHECK(parse_error(project_with(good_network, "{}", R"({"schedule": {"type": "linear"}})")) ==
          "p.json: training.schedule.type is 'linear', which is not a schedule; the choices are constant, step, "
          "cosine");
    CHECK(parse_error(project_with(good_network, R"({"validation_fraction": 1})")) ==
          "p.json: dataset.validation_fraction must be a number from 0 up to 1 (not included), not 1");
    CHECK(parse_error(project_with(good_network, R"({"validation_fraction": -0.1})")) ==
          "p.json: dataset.validation_fraction must be a number from 0 up to 1 (not included), not -0.1");
    CHECK(parse_error(project_with(good_network, R"({"name": "imagenet"})")) ==
          "p.json: dataset.name is 'imagenet', which is not a dataset Backprop Studio knows; the choices are " +
              bps::datasets::catalogue_ids() + " (or give the \"folder\" of your images)");
    CHECK(parse_error(project_with(good_network, R"({"image_size": [28]})")) ==
          "p.json: dataset.image_size must be a whole number of at least 1 or a list of two of them ([height, "
          "width]), not [28]");

    const std::string loss_network = R"({"loss": "hinge", "nodes": [{"name": "input", "type": "Input"}]})";
    CHECK(parse_error(project_with(loss_network)) ==
          "p.json: network.loss is 'hinge', which is not a loss; the choices are softmax_cross_entropy, "
          "mean_squared_error");
}

TEST_CASE("node problems name the node by index and name", "[project]") {
    const auto dir = invalid_projects_dir();
    CHECK(read_error(dir / "zero_units.json") ==
          (dir / "zero_units.json").string() +
              ": network.nodes[2] ('fc1'): params.units must be a whole number of at least 1, not 0");
    CHECK(read_error(dir / "unknown_type.json") ==
          (dir / "unknown_type.json").string() +
              ": network.nodes[2] ('fc1') has type 'Dense2', which is not a layer type; the types are Input, Dense, "
              "Conv2D, MaxPool2D, AvgPool2D, GlobalAveragePooling2D, Flatten, Activation, Dropout, "
              "BatchNormalization, Add, Concatenate");
    CHECK(read_error(dir / "bad_edge.json") ==
          (dir / "bad_edge.json").string() + ": network.edges[2] goes from 'fc9', which is not a node");

    CHECK(parse_error(project_with(network_with_fc1(R"({})"))) ==
          "p.json: network.nodes[2] ('fc1'): params.units is missing; give the number of outputs, e.g. \"units\": "
          "128");
    CHECK(parse_error(project_with(network_with_fc1(R"({"units": 10, "initializer": "xavier"})"))) ==
          "p.json: network.nodes[2] ('fc1'): params.initializer is 'xavier', which is not an initializer; the "
          "choices are he_uniform, he_normal, glorot_uniform, glorot_normal, zeros, ones");

    const std::string conv = R"({"nodes": [{"name": "input", "type": "Input"},
        {"name": "conv1", "type": "Conv2D", "params": {"filters": 8, "padding": "full"}}],
        "edges": [{"from": "input", "to": "conv1"}]})";
    CHECK(parse_error(project_with(conv)) ==
          "p.json: network.nodes[1] ('conv1'): params.padding is 'full', which is not a padding; the choices are "
          "valid, same");
    const std::string act = R"({"nodes": [{"name": "input", "type": "Input"},
        {"name": "act", "type": "Activation", "params": {"activation": "gelu"}}],
        "edges": [{"from": "input", "to": "act"}]})";
    CHECK(parse_error(project_with(act)) ==
          "p.json: network.nodes[1] ('act'): params.activation is 'gelu', which is not an activation; the choices "
          "are relu, leaky_relu, sigmoid, tanh");

    const std::string twice = R"({"nodes": [{"name": "input", "type": "Input"}, {"name": "fc", "type": "Dense",
        "params": {"units": 3}}, {"name": "fc", "type": "Flatten"}]})";
    CHECK(parse_error(project_with(twice)) ==
          "p.json: network.nodes[2] ('fc') has the same name as network.nodes[1]; node names must be unique");
    CHECK(parse_error(project_with(R"({"nodes": [{"type": "Input"}]})")) ==
          "p.json: network.nodes[0] has no \"name\"; every node needs a unique name");
    CHECK(parse_error(project_with(R"({"nodes": [{"name": "input"}]})")) ==
          "p.json: network.nodes[0] ('input') has no \"type\"; the types are Input, Dense, Conv2D, MaxPool2D, "
          "AvgPool2D, GlobalAveragePooling2D, Flatten, Activation, Dropout, BatchNormalization, Add, Concatenate");

    const std::string edge_to_nowhere = R"({"nodes": [{"name": "input", "type": "Input"}],
        "edges": [{"from": "input", "to": "fc1"}]})";
    CHECK(parse_error(project_with(edge_to_nowhere)) == "p.json: network.edges[0] goes to 'fc1', which is not a node");
}

TEST_CASE("a node with no edge into it parses, so unfinished work opens, and the analysis names it", "[project]") {
    const std::string unconnected = R"({"nodes": [{"name": "input", "type": "Input"}, {"name": "fc1", "type": "Dense",
        "params": {"units": 3}}]})";
    const bps::project::Project project = bps::project::parse_project(project_with(unconnected), "p.json");
    CHECK(project.network.layers[1].inputs.empty());
    const bps::model::GraphReport report = bps::project::project_report(project, {1, 28, 28}, std::nullopt);
    REQUIRE(!report.problems.empty());
    CHECK(report.problems[0].node == 1);
    CHECK(report.problems[0].message == "Dense 'fc1' has no input; connect the layer it should read to it");
    CHECK(report.nodes[1].problems == std::vector<std::string>{report.problems[0].message});
    // Saved again, it stays unconnected: no edge is made up for it.
    const auto saved = nlohmann::json::parse(bps::project::project_to_json(project));
    CHECK(saved["network"]["edges"].empty());
}

TEST_CASE("graph problems are left to the analysis: the crafted graph-invalid files parse", "[project]") {
    for (const char* name :
         {"dense_without_flatten.json", "conv_kernel_too_large.json", "cycle.json", "wrong_class_count.json"}) {
        INFO(name);
        CHECK(read_error(invalid_projects_dir() / name) == "no error");
    }
    // The cycle's edges become inputs in edge order.
    const auto cycle = bps::project::read_project(invalid_projects_dir() / "cycle.json");
    CHECK(cycle.network.layers[3].inputs == std::vector<std::string>{"fc1", "relu1"});
    CHECK(cycle.network.layers[4].inputs == std::vector<std::string>{"add1"});
}
