// Writing a project and reading it back: nothing lost, unknown fields kept, saves atomic.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/project/project.h"
#include "tests/engine/project/project_equality.h"
#include "tests/support/temp_dir.h"

using bps::project::parse_project;
using bps::project::Project;
using bps::project::project_to_json;
using nlohmann::json;
namespace model = bps::model;

namespace {

// Every layer type and every field away from its default, so a field the writer forgot shows up.
Project unusual_project() {
    Project project;
    project.name = "all the layers";
    project.description = "a residual block, \"quoted\" text and a ü";
    project.device = "1";
    model::NetworkSpec& network = project.network;
    network.loss = model::LossKind::mean_squared_error;
    network.input = bps::Shape{1, 3, 20, 24};
    auto conv = model::from(model::conv2d("conv1", 6, 5, 2, bps::model::Padding::same), {"input"});
    conv.conv.kernel_w = 3;
    conv.conv.stride_w = 1;
    conv.initializer = bps::train::Initializer::glorot_normal;
    auto pool = model::from(model::max_pool("pool1", 3, 2), {"conv1"});
    pool.pool.size_w = 2;
    network.layers = {model::input_layer(),
                      conv,
                      pool,
                      model::from(model::avg_pool("avg1", 2, 1), {"pool1"}),
                      model::from(model::batch_norm("bn1"), {"avg1"}),
                      model::from(model::activation("act1", bps::model::Activation::leaky_relu, 0.2f), {"bn1"}),
                      model::from(model::activation("act2", bps::model::Activation::tanh), {"act1"}),
                      model::add("add1", {"act2", "act1"}),
                      model::concat("cat1", {"add1", "bn1"}),
                      model::from(model::global_avg_pool("gap"), {"cat1"}),
                      model::from(model::flatten("flat"), {"gap"}),
                      model::from(model::dropout("drop", 0.3f), {"flat"}),
                      model::from(model::dense("out", 7, bps::train::Initializer::zeros), {"drop"})};
    network.layers[4].momentum = 0.9f;
    network.layers[4].epsilon = 1e-5f;
    for (std::size_t i = 0; i < network.layers.size(); ++i)
        network.layers[i].position =
            model::CanvasPosition{12.5 * static_cast<double>(i), -3.25 + static_cast<double>(i)};
    project.dataset.name = "";
    project.dataset.folder = "my photos/flowers";
    project.dataset.height = 20;
    project.dataset.width = 24;
    project.dataset.channels = 3;
    project.dataset.validation_fraction = 0.25;
    project.dataset.normalize = false;
    project.dataset.shuffle = false;
    project.dataset.augmentation = {true, 2, true};
    project.training.epochs = 12;
    project.training.batch_size = 33;
    project.training.seed = 12345678901234ULL;
    project.training.optimizer = {bps::train::OptimizerKind::adamw, 3e-4f, 0.5f, true, 0.05f, 0.8f, 0.99f, 1e-8f};
    project.training.schedule = {bps::train::ScheduleKind::cosine, 3, 0.7f, 11, 1e-5f};
    return project;
}

std::string file_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("a project written and read back is the same project", "[project]") {
    const Project project = unusual_project();
    const std::string text = project_to_json(project);
    bps::test::check_same_project(parse_project(text, "p.json"), project);

    // Read independently: floats are written as the short decimals a learner would type.
    const json file = json::parse(text);
    CHECK(file["format"] == "backprop-studio-project");
    CHECK(file["version"] == 1);
    CHECK(file["training"]["optimizer"]["learning_rate"].dump() == "0.0003");
    CHECK(file["training"]["optimizer"]["epsilon"].dump() == "1e-08");
    CHECK(file["network"]["nodes"][5]["params"] == json::parse(R"({"activation": "leaky_relu", "slope": 0.2})"));
    CHECK(file["network"]["nodes"][1]["params"] ==
          json::parse(R"({"filters": 6, "kernel": [5, 3], "stride": [2, 1], "padding": "same",
                          "initializer": "glorot_normal"})"));
    CHECK(file["network"]["edges"][7] == json::parse(R"({"from": "act1", "to": "add1"})"));
    CHECK(file["network"]["edges"].size() == 14);  // 12 layers with inputs, two of them with two
    CHECK(text.rfind("{\n  \"format\": \"backprop-studio-project\",\n  \"version\": 1,", 0) == 0);
}

TEST_CASE("a network built in code with implicit inputs is written with explicit edges", "[project]") {
    Project project;
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc1", 10)};
    const json file = json::parse(project_to_json(project));
    CHECK(file["network"]["edges"] ==
          json::parse(R"([{"from": "input", "to": "flatten"}, {"from": "flatten", "to": "fc1"}])"));
    CHECK(file["network"]["nodes"][2]["position"] == json::parse(R"({"x": 360.0, "y": 200.0})"));
    const Project back = parse_project(project_to_json(project), "p.json");
    CHECK(back.network.layers[2].inputs == std::vector<std::string>{"flatten"});
}

TEST_CASE("a minimal project file takes the documented defaults", "[project]") {
    const Project project = parse_project(R"({"format": "backprop-studio-project", "version": 1,
        "network": {"nodes": [{"name": "input", "type": "Input"}, {"name": "conv", "type": "Conv2D",
        "params": {"filters": 4, "kernel": 5}}, {"name": "pool", "type": "AvgPool2D", "params": {"size": [3, 2]}}],
        "edges": [{"from": "input", "to": "conv"}, {"from": "conv", "to": "pool"}]}})",
                                          "p.json");
    Project expected;
    expected.network.input = bps::Shape{1, 1, 28, 28};  // fashion-mnist's images
    auto conv = model::from(model::conv2d("conv", 4, 5), {"input"});
    auto pool = model::from(model::avg_pool("pool", 3, 3), {"conv"});
    pool.pool.size_w = pool.pool.stride_w = 2;  // the stride defaults to the size
    expected.network.layers = {model::input_layer(), conv, pool};
    for (std::size_t i = 0; i < expected.network.layers.size(); ++i)  // the default chain
        expected.network.layers[i].position = model::CanvasPosition{40 + 160 * static_cast<double>(i), 200};
    bps::test::check_same_project(project, expected);

    // A catalogue dataset without size fields shows the catalogue's image size.
    const Project cifar = parse_project(R"({"format": "backprop-studio-project", "version": 1,
        "network": {"nodes": [{"name": "input", "type": "Input"}]}, "dataset": {"name": "CIFAR10"}})",
                                        "p.json");
    CHECK(cifar.dataset.name == "cifar10");
    CHECK(cifar.dataset.channels == 3);
    CHECK(cifar.dataset.height == 32);
    CHECK(cifar.dataset.width == 32);
    CHECK(cifar.network.input == bps::Shape{1, 3, 32, 32});
}

TEST_CASE("fields this version does not know survive a save", "[project]") {
    const std::string original = R"({
      "format": "backprop-studio-project", "version": 1, "name": "extras", "author": "Ada",
      "network": {"loss": "softmax_cross_entropy", "comment": "drawn by hand",
        "nodes": [{"name": "input", "type": "Input", "color": "blue", "position": {"x": 1, "y": 2, "z": 3}},
                  {"name": "flatten", "type": "Flatten"},
                  {"name": "fc1", "type": "Dense", "params": {"units": 10, "use_bias": false}, "note": "output"}],
        "edges": [{"from": "input", "to": "flatten"}, {"from": "flatten", "to": "fc1"}]},
      "dataset": {"name": "mnist", "cache": "ram", "augmentation": {"rotate": 15}},
      "training": {"epochs": 3, "early_stopping": {"patience": 2},
                   "optimizer": {"type": "adam", "amsgrad": true}, "schedule": {"warmup": 1}},
      "ui": {"zoom": 1.5}
    })";
    Project project = parse_project(original, "p.json");
    project.training.epochs = 7;
    const std::string written = project_to_json(project);
    const json file = json::parse(written);
    CHECK(file["author"] == "Ada");
    CHECK(file["ui"] == json::parse(R"({"zoom": 1.5})"));
    CHECK(file["network"]["comment"] == "drawn by hand");
    CHECK(file["network"]["nodes"][0]["color"] == "blue");
    CHECK(file["network"]["nodes"][0]["position"] == json::parse(R"({"x": 1.0, "y": 2.0, "z": 3})"));
    CHECK(file["network"]["nodes"][2]["note"] == "output");
    CHECK(file["network"]["nodes"][2]["params"] ==
          json::parse(R"({"units": 10, "initializer": "he_uniform", "use_bias": false})"));
    CHECK(file["dataset"]["cache"] == "ram");
    CHECK(file["dataset"]["augmentation"]["rotate"] == 15);
    CHECK(file["training"]["early_stopping"] == json::parse(R"({"patience": 2})"));
    CHECK(file["training"]["optimizer"]["amsgrad"] == true);
    CHECK(file["training"]["optimizer"]["type"] == "adam");
    CHECK(file["training"]["schedule"]["warmup"] == 1);
    CHECK(file["training"]["epochs"] == 7);

    const Project back = parse_project(written, "p.json");
    CHECK(back.training.epochs == 7);
    bps::test::check_same_project(back, project);

    // A node whose type changed drops the old type's unknown parameters, keeps its other fields.
    project.network.layers[2] = model::from(model::dropout("fc1", 0.5f), {"flatten"});
    const json retyped = json::parse(project_to_json(project));
    CHECK(retyped["network"]["nodes"][2]["params"] == json::parse(R"({"rate": 0.5})"));
    CHECK(retyped["network"]["nodes"][2]["note"] == "output");
}

TEST_CASE("projects are saved whole or not at all", "[project]") {
    bps::test::TempDir temp("project-save");
    const auto file = temp.path() / "net.json";
    const Project project = unusual_project();
    bps::project::save_project(file, project);
    CHECK(file_text(file) == project_to_json(project));
    CHECK_FALSE(std::filesystem::exists(temp.path() / "net.json.part"));
    bps::test::check_same_project(bps::project::read_project(file), project);

    // Saving again replaces the file.
    Project changed = project;
    changed.name = "renamed";
    bps::project::save_project(file, changed);
    CHECK(bps::project::read_project(file).name == "renamed");

    const auto nowhere = temp.path() / "no such folder" / "net.json";
    try {
        bps::project::save_project(nowhere, project);
        FAIL("saved into a folder that does not exist");
    } catch (const bps::project::ProjectError& error) {
        CHECK(std::string(error.what()) == nowhere.string() + ": could not be saved: the folder " +
                                               (temp.path() / "no such folder").string() + " does not exist");
    }

    // A folder where the file should go is left as it is.
    const auto folder = temp.path() / "taken";
    std::filesystem::create_directories(folder / "inside");
    try {
        bps::project::save_project(folder, project);
        FAIL("saved over a folder");
    } catch (const bps::project::ProjectError& error) {
        CHECK(std::string(error.what()) == folder.string() + ": is a folder; save the project under another name");
    }
    CHECK(std::filesystem::is_directory(folder / "inside"));
    CHECK_FALSE(std::filesystem::exists(temp.path() / "taken.part"));
}
