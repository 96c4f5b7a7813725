// Issue 5's acceptance on this machine's OpenCL device (PoCL in CI): the shipped mlp and cnn
// projects trained for one epoch on Fashion-MNIST (batch 64, SGD 0.01, momentum 0.9) reach the
// test accuracy of shared/bench/REFERENCE.md's PyTorch runs, and the saved weights give the same
// accuracy through `backprop evaluate` and sensible classes through `backprop predict`.
// Labelled "e2e" in CTest: `ctest -L e2e` runs them alone (about two minutes on two cores).
#include <catch2/catch.hpp>
#include <iostream>
#include <regex>

#include "datasets/catalogue.h"
#include "datasets/idx_reader.h"
#include "tests/cli/cli.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {
const std::filesystem::path fashion_mnist = "/usr/share/datasets/fashion-mnist";

std::string first_match(const std::string& text, const std::string& pattern) {
    std::smatch match;
    REQUIRE(std::regex_search(text, match, std::regex(pattern)));
    return match[1];
}

void check_project_reaches(const std::string& project, double accuracy_floor) {
    REQUIRE(std::filesystem::exists(fashion_mnist / "t10k-images-idx3-ubyte.gz"));
    TempDir dir("e2e-" + project);
    const std::filesystem::path weights = dir.path() / (project + ".h5");
    const ProcessResult trained =
        run_command_stdout(backprop("train " + project + " --save-weights \"" + weights.string() + "\""), 1100);
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("1 epoch, batch 64, SGD, learning rate 0.01, momentum 0.9"));
    CHECK_THAT(trained.output, Catch::Contains("60,000 training, 0 validation, 10,000 test images"));
    const std::string accuracy =
        first_match(trained.output, R"(test accuracy ([0-9.]+), loss [0-9.]+ \(10,000 images\))");
    const std::string speed = first_match(trained.output, R"(epoch 1/1: .*, ([0-9,]+) images/s)");
    std::cout << project << ": test accuracy " << accuracy << " after 1 epoch, " << speed << " images/s\n";
    CHECK(std::stod(accuracy) >= accuracy_floor);

    // The saved weights, read back by another process, give the same figure.
    const ProcessResult evaluated =
        run_command_stdout(backprop("evaluate " + project + " --weights \"" + weights.string() + "\""));
    REQUIRE(evaluated.exit_code == 0);
    CHECK(first_match(evaluated.output, R"(test accuracy ([0-9.]+))") == accuracy);

    // Predictions for the first 20 test images, written as PNG files: their labels are known.
    const bps::datasets::Dataset test = bps::datasets::read_idx_dataset(
        fashion_mnist / "t10k-images-idx3-ubyte.gz", fashion_mnist / "t10k-labels-idx1-ubyte.gz",
        bps::datasets::catalogue_entry("fashion-mnist").class_names, "test");
    std::string files;
    for (std::size_t i = 0; i < 20; ++i) {
        const std::filesystem::path png = dir.path() / ("test" + std::to_string(i) + ".png");
        write_test_png(png, 28, 28, 1, test.pixels(i));
        files += " \"" + png.string() + "\"";
    }
    const ProcessResult predicted =
        run_command_stdout(backprop("predict " + project + " --weights \"" + weights.string() + "\"" + files));
    INFO(predicted.output);
    REQUIRE(predicted.exit_code == 0);
    int correct = 0;
    for (std::size_t i = 0; i < 20; ++i) {
        const std::string top = first_match(
            predicted.output, "test" + std::to_string(i) + R"(\.png: ([A-Za-z/ -]+) [0-9.]+, [A-Za-z/ -]+ [0-9.]+, )");
        correct += top == test.class_names[static_cast<std::size_t>(test.labels[i])];
    }
    CHECK(correct >= 15);
}
}  // namespace

TEST_CASE("the mlp project reaches 0.83 test accuracy on Fashion-MNIST after one epoch", "[e2e]") {
    check_project_reaches("mlp", 0.83);
}

TEST_CASE("the cnn project reaches 0.86 test accuracy on Fashion-MNIST after one epoch", "[e2e]") {
    check_project_reaches("cnn", 0.86);
}
