// Weights files outside Backprop Studio and back: a Keras-layout file written by another program
// (h5py, as Keras writes it: its own layer names, byte strings, no model card) is read into a
// project with the same architecture and evaluates exactly like ours; a mismatch names the layer
// and both shapes; and our own file alone (its project and model card inside) predicts with no
// training data and opens as the project it was trained from.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "tests/cli/cli.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

// Two classes of 8x8 images: a bright square in the top-left or the bottom-right quarter.
void write_corners(const std::filesystem::path& folder, int per_class) {
    std::mt19937 generator(11);
    for (const std::string kind : {"bottom", "top"}) {
        std::filesystem::create_directories(folder / kind);
        for (int i = 0; i < per_class; ++i) {
            std::vector<std::uint8_t> pixels(64);
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    const bool inside = kind == "top" ? (y < 4 && x < 4) : (y >= 4 && x >= 4);
                    pixels[static_cast<std::size_t>(y * 8 + x)] =
                        static_cast<std::uint8_t>((inside ? 160 : 20) + static_cast<int>(generator() % 60));
                }
            write_test_png(folder / kind / (std::to_string(i) + ".png"), 8, 8, 1, pixels);
        }
    }
}

// A convolution before the Flatten, so a Keras reader must re-order the Dense rows (C,H,W to H,W,C).
std::filesystem::path write_corners_project(const std::filesystem::path& dir, const std::filesystem::path& images) {
    const std::filesystem::path file = dir / "corners.json";
    std::ofstream out(file);
    out << R"({
  "format": "backprop-studio-project", "version": 1, "name": "corners",
  "network": {
    "nodes": [{"name": "input", "type": "Input"},
              {"name": "conv1", "type": "Conv2D", "params": {"filters": 3, "kernel": [3, 3], "padding": "same"}},
              {"name": "relu", "type": "Activation", "params": {"activation": "relu"}},
              {"name": "flatten", "type": "Flatten"},
              {"name": "out", "type": "Dense", "params": {"units": 2, "initializer": "glorot_uniform"}}],
    "edges": [{"from": "input", "to": "conv1"}, {"from": "conv1", "to": "relu"}, {"from": "relu", "to": "flatten"},
              {"from": "flatten", "to": "out"}]
  },
  "dataset": {"name": "", "folder": )"
        << nlohmann::json(images.generic_string()).dump() << R"(, "image_size": [8, 8], "channels": 1},
  "training": {"epochs": 3, "batch_size": 8, "seed": 5, "optimizer": {"type": "sgd", "learning_rate": 0.05}}
})";
    return file;
}

struct TrainedCorners {
    TempDir dir{"cli-keras-files"};
    std::filesystem::path images, project, weights;
    TrainedCorners() {
        images = dir.path() / "images";
        write_corners(images, 12);
        project = write_corners_project(dir.path(), images);
        weights = dir.path() / "w.h5";
        const ProcessResult trained =
            run_command(backprop("train " + quote(project) + " --save-weights " + quote(weights)));
        INFO(trained.output);
        REQUIRE(trained.exit_code == 0);
    }
};

std::string rewrite_script() {
    return (std::filesystem::path(TESTS_SOURCE_DIR) / "python" / "rewrite_as_keras.py").string();
}

}  // namespace

TEST_CASE("a Keras file written by h5py is read into a project with the same network and evaluates the same",
          "[cli][keras]") {
    TrainedCorners run;
    const std::filesystem::path keras = run.dir.path() / "keras.h5";
    const ProcessResult rewritten =
        run_command(python + " " + quote(rewrite_script()) + " " + quote(run.weights) + " " + quote(keras));
    INFO(rewritten.output);
    REQUIRE(rewritten.exit_code == 0);

    const ProcessResult ours =
        run_command_stdout(backprop("evaluate " + quote(run.project) + " --weights " + quote(run.weights)));
    const ProcessResult theirs =
        run_command_stdout(backprop("evaluate " + quote(run.project) + " --weights " + quote(keras)));
    INFO(ours.output << theirs.output);
    REQUIRE(ours.exit_code == 0);
    REQUIRE(theirs.exit_code == 0);
    CHECK_THAT(ours.output, Catch::StartsWith("accuracy "));
    CHECK(theirs.output == ours.output);  // the same accuracy and loss, to every printed digit

    // Predicting needs the classes and the normalisation, which another program's file lacks.
    const ProcessResult predicted = run_command(backprop("predict " + quote(run.project) + " --weights " +
                                                         quote(keras) + " " + quote(run.images / "top" / "0.png")));
    CHECK(predicted.exit_code == 1);
    CHECK(predicted.output == "backprop predict: error: " + keras.string() +
                                  ": does not say which images and classes it was trained on (it was written by "
                                  "another program); predicting needs weights saved by Backprop Studio\n");
}

TEST_CASE("a Keras file that does not fit the network names the layer and both shapes", "[cli][keras]") {
    TrainedCorners run;
    const std::filesystem::path keras = run.dir.path() / "wrong.h5";
    REQUIRE(run_command(python + " " + quote(rewrite_script()) + " " + quote(run.weights) + " " + quote(keras) +
                        " --wrong-shape")
                .exit_code == 0);
    const ProcessResult result = run_command(backprop("evaluate " + quote(run.project) + " --weights " + quote(keras)));
    CHECK(result.exit_code == 1);
    CHECK(result.output == "backprop evaluate: error: " + keras.string() +
                               ": layer 'out' (the file's 'dense_1'): kernel is 191x2 in the file but the network "
                               "needs 192x2\n");
}

TEST_CASE("our weights file alone predicts with no training data, and holds the project it was trained from",
          "[cli][keras]") {
    TrainedCorners run;
    const std::filesystem::path image = run.dir.path() / "top.png";
    std::filesystem::copy_file(run.images / "top" / "3.png", image);
    const ProcessResult with_project = run_command_stdout(
        backprop("predict " + quote(run.project) + " --weights " + quote(run.weights) + " " + quote(image)));
    REQUIRE(with_project.exit_code == 0);
    std::filesystem::remove_all(run.images);  // no training data any more
    std::filesystem::remove(run.project);     // nor the project file
    const ProcessResult alone = run_command_stdout(backprop("predict " + quote(run.weights) + " " + quote(image)));
    INFO(alone.output);
    REQUIRE(alone.exit_code == 0);
    CHECK(alone.output == with_project.output);
    CHECK(std::regex_search(alone.output, std::regex("top\\.png: (top|bottom) [01]\\.[0-9]{3}, (top|bottom) ")));
}
