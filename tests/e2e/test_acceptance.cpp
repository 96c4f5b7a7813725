// Issue 5's acceptance on this machine's OpenCL device (PoCL in CI): the shipped mlp and cnn
// projects trained for one epoch on Fashion-MNIST (batch 64, SGD 0.01, momentum 0.9) reach the
// test accuracy of shared/bench/REFERENCE.md's PyTorch runs, and the saved weights give the same
// accuracy through `backprop evaluate` and sensible classes through `backprop predict`.
// Labelled "e2e" in CTest: `ctest -L e2e` runs them alone (about two minutes on two cores).
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "datasets/catalogue.h"
#include "datasets/idx_reader.h"
#include "tests/cli/cli.h"
#include "tests/cli/probabilities.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {
const std::filesystem::path fashion_mnist = "/usr/share/datasets/fashion-mnist";

std::string first_match(const std::string& text, const std::string& pattern) {
    std::smatch match;
    REQUIRE(std::regex_search(text, match, std::regex(pattern)));
    return match[1];
}

// Issue 22's independent check: the weights file read with h5py (not our code) and the forward pass
// rebuilt in numpy with Keras's conventions, and the exported PyTorch script run with Debian's
// torch, both give `backprop predict`'s probabilities on 100 test images within 1e-4.
// Issue 22's independent check: the weights file read with h5py (not our code) and the forward pass
// rebuilt in numpy with Keras's conventions, and the exported PyTorch script run with Debian's
// torch, both give `backprop predict`'s probabilities on 100 test images within 1e-4.
void check_exported_weights(const std::string& project, const std::filesystem::path& weights,
                            const bps::datasets::Dataset& test, const std::filesystem::path& dir) {
    std::string files;
    for (std::size_t i = 0; i < 100; ++i) {
        const std::filesystem::path png = dir / ("check" + std::to_string(i) + ".png");
        write_test_png(png, 28, 28, 1, test.pixels(i));
        files += ' ';
        files += quote(png);
    }
    std::string predict = "predict ";
    predict += quote(weights);
    predict += " --json";
    predict += files;
    const ProcessResult ours = run_command_stdout(backprop(predict));
    REQUIRE(ours.exit_code == 0);
    const auto predicted = probabilities_of(ours.output);
    REQUIRE(predicted.size() == 100);

    std::string numpy_command = "/usr/bin/python3 ";
    numpy_command += quote(std::filesystem::path(TESTS_SOURCE_DIR) / "python" / "keras_numpy_forward.py");
    numpy_command += ' ';
    numpy_command += project;
    numpy_command += ' ';
    numpy_command += quote(weights);
    numpy_command += files;
    const ProcessResult numpy = run_command_stdout(numpy_command);
    INFO(numpy.output.substr(0, 2000));
    REQUIRE(numpy.exit_code == 0);
    const double numpy_difference = largest_difference(predicted, probabilities_of(numpy.output));
    std::cout << project << ": h5py + numpy (Keras's conventions) against backprop predict on 100 test images: "
              << "largest probability difference " << numpy_difference << "\n";
    CHECK(numpy_difference <= 1e-4);

    const std::filesystem::path script = dir / (project + "_pytorch.py");
    std::string export_command = "export ";
    export_command += quote(weights);
    export_command += " --pytorch ";
    export_command += quote(script);
    REQUIRE(run_command(backprop(export_command)).exit_code == 0);
    std::string torch_command = "/usr/bin/python3 ";
    torch_command += quote(script);
    torch_command += " --json";
    torch_command += files;
    const ProcessResult torch = run_command_stdout(torch_command);
    INFO(torch.output.substr(0, 2000));
    REQUIRE(torch.exit_code == 0);
    const double torch_difference = largest_difference(predicted, probabilities_of(torch.output));
    std::cout << project << ": exported PyTorch script against backprop predict on 100 test images: "
              << "largest probability difference " << torch_difference << "\n";
    CHECK(torch_difference <= 1e-4);
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

    check_exported_weights(project, weights, test, dir.path());
}
}  // namespace

TEST_CASE("the mlp project reaches 0.83 test accuracy on Fashion-MNIST after one epoch", "[e2e]") {
    check_project_reaches("mlp", 0.83);
}

TEST_CASE("the cnn project reaches 0.86 test accuracy on Fashion-MNIST after one epoch", "[e2e]") {
    check_project_reaches("cnn", 0.86);
}
