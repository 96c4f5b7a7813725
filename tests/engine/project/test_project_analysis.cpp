// Crafted project files that parse but cannot train: each gives its own message naming the layer
// (the list and messages are in invalid/EXPECTED.txt, one "file<TAB>message" per line).
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/engine/project/project_test_support.h"

using namespace bps;

namespace {
const datasets::ImageShape fashion_mnist{1, 28, 28};

std::vector<std::pair<std::string, std::string>> expected_messages() {
    std::ifstream list(test::invalid_projects_dir() / "EXPECTED.txt");
    std::vector<std::pair<std::string, std::string>> cases;
    std::string line;
    while (std::getline(list, line)) {
        const std::size_t tab = line.find('\t');
        if (tab != std::string::npos) cases.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return cases;
}
}  // namespace

TEST_CASE("graph problems in crafted project files each give their message", "[project]") {
    const auto cases = expected_messages();
    REQUIRE(cases.size() == 4);
    for (const auto& [file, message] : cases) {
        INFO(file);
        const project::Project project = project::read_project(test::invalid_projects_dir() / file);
        REQUIRE_THROWS_MATCHES(project::analyse_project(project, fashion_mnist, 10), model::ModelError,
                               Catch::Matchers::Message(message));
    }
}

TEST_CASE("the example projects pass the analysis against their datasets", "[project]") {
    CHECK(project::analyse_project(project::example_project("mlp"), fashion_mnist, 10).parameters() == 203530);
    CHECK(project::analyse_project(project::example_project("cnn"), fashion_mnist, 10).parameters() == 225034);
    CHECK(project::analyse_project(project::example_project("cifar"), {3, 32, 32}, 10).parameters() == 2168362);
    // The same network on a dataset with another class count is refused.
    REQUIRE_THROWS_MATCHES(project::analyse_project(project::example_project("mlp"), fashion_mnist, 100),
                           model::ModelError,
                           Catch::Matchers::Message("the output 'fc2' has 10 units but the dataset has 100 classes"));
}
