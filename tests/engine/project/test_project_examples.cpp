// The example projects shipped inside the program are the reference networks.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/compare/reference_networks.h"
#include "engine/project/project.h"
#include "tests/engine/project/project_equality.h"

namespace {

std::string shipped_file(const std::string& name) {
    const auto file = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
                      "tutorials" / "projects" / (name + ".json");
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the example projects are the reference networks", "[project]") {
    CHECK(bps::project::example_names() == std::vector<std::string>{"mlp", "cnn", "cifar"});
    for (const std::string& name : bps::project::example_names()) {
        INFO(name);
        // The embedded text is the file in tutorials/projects.
        CHECK(bps::project::example_text(name) == shipped_file(name));
        CHECK_FALSE(bps::project::example_text(name).empty());

        const bps::project::Project project = bps::project::example_project(name);
        const bps::model::NetworkSpec reference = bps::bench::reference_network(name);
        CHECK(project.name == name);
        CHECK(project.network.input == reference.input);
        CHECK(project.network.loss == reference.loss);
        REQUIRE(project.network.layers.size() == reference.layers.size());
        for (std::size_t i = 0; i < reference.layers.size(); ++i) {
            // The reference leaves inputs implicit (the previous layer); the file draws every edge.
            bps::model::LayerSpec expected = reference.layers[i];
            if (i > 0 && expected.inputs.empty()) expected.inputs = {reference.layers[i - 1].name};
            REQUIRE(project.network.layers[i].position);
            CHECK(project.network.layers[i].position->x == 40 + 160 * static_cast<double>(i));
            CHECK(project.network.layers[i].position->y == 200);
            expected.position = project.network.layers[i].position;
            bps::test::check_same_layer(project.network.layers[i], expected);
        }
        const bool cifar = name == "cifar";
        CHECK(project.dataset.name == (cifar ? "cifar10" : "fashion-mnist"));
        CHECK(project.dataset.channels == (cifar ? 3 : 1));
        CHECK(project.dataset.height == (cifar ? 32 : 28));
        // Reference networks train on every training image, as shared/bench/REFERENCE.md defines an epoch.
        CHECK(project.dataset.validation_fraction == 0.0);
        CHECK(project.dataset.normalize);
        CHECK_FALSE(project.dataset.augmentation.any());
        CHECK(project.training.epochs == 1);
        CHECK(project.training.batch_size == 64);
        CHECK(project.training.seed == 42);
        CHECK(project.training.optimizer.kind == bps::train::OptimizerKind::sgd);
        CHECK(project.training.optimizer.learning_rate == 0.01f);
        CHECK(project.training.optimizer.momentum == 0.9f);
        CHECK(project.training.schedule.kind == bps::train::ScheduleKind::constant);
    }
}

TEST_CASE("an unknown example project name lists the examples", "[project]") {
    try {
        bps::project::example_text("resnet");
        FAIL("no error");
    } catch (const std::invalid_argument& error) {
        CHECK(std::string(error.what()) == "unknown example project 'resnet'; the examples are mlp, cnn and cifar");
    }
}

TEST_CASE("the example projects are written back as the same JSON, canvas positions included", "[project]") {
    for (const std::string& name : bps::project::example_names()) {
        INFO(name);
        const auto shipped = nlohmann::json::parse(shipped_file(name));
        const auto written = nlohmann::json::parse(bps::project::project_to_json(bps::project::example_project(name)));
        CHECK(written == shipped);
        CHECK(written["network"]["nodes"][1]["position"] == shipped["network"]["nodes"][1]["position"]);
    }
}
