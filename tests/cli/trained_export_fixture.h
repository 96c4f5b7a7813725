#pragma once
// A trained network with every kind of layer the exports translate (strided 'same' convolution,
// BatchNormalization on a feature map and on flat features, LeakyReLU, Add, Concatenate, both
// poolings, global average pooling, tanh, sigmoid, Dropout), trained for a moment on a small image
// folder of three colours: what the PyTorch, Keras and ONNX export tests compare against
// `backprop predict`.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/cli/cli.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

namespace bps::test {

// Three classes of 10x10 colour images: mostly red, green or blue, with noise.
inline std::vector<std::filesystem::path> write_colours(const std::filesystem::path& folder, int per_class) {
    std::mt19937 generator(3);
    std::vector<std::filesystem::path> files;
    const std::vector<std::string> kinds = {"blue", "green", "red"};
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        std::filesystem::create_directories(folder / kinds[k]);
        for (int i = 0; i < per_class; ++i) {
            std::vector<std::uint8_t> pixels(300);
            for (std::size_t p = 0; p < 100; ++p)
                for (std::size_t c = 0; c < 3; ++c)
                    pixels[p * 3 + c] =
                        static_cast<std::uint8_t>((2 - c == k ? 140 : 30) + static_cast<int>(generator() % 100));
            files.push_back(folder / kinds[k] / (std::to_string(i) + ".png"));
            write_test_png(files.back(), 10, 10, 3, pixels);
        }
    }
    return files;
}

inline std::filesystem::path write_every_layer_project(const std::filesystem::path& dir,
                                                       const std::filesystem::path& images) {
    const std::filesystem::path file = dir / "every layer.json";
    std::ofstream out(file);
    out << R"({
  "format": "backprop-studio-project", "version": 1, "name": "every layer",
  "network": {
    "nodes": [{"name": "input", "type": "Input"},
              {"name": "conv1", "type": "Conv2D", "params": {"filters": 4, "kernel": [3, 3], "stride": [2, 2], "padding": "same"}},
              {"name": "bn1", "type": "BatchNormalization"},
              {"name": "leaky", "type": "Activation", "params": {"activation": "leaky_relu", "slope": 0.1}},
              {"name": "conv-2", "type": "Conv2D", "params": {"filters": 4, "kernel": [2, 2], "padding": "same"}},
              {"name": "sum", "type": "Add"},
              {"name": "avg", "type": "AvgPool2D", "params": {"size": [2, 2], "stride": [1, 1]}},
              {"name": "max", "type": "MaxPool2D", "params": {"size": [2, 2], "stride": [2, 2]}},
              {"name": "gap", "type": "GlobalAveragePooling2D"},
              {"name": "flat_avg", "type": "Flatten"}, {"name": "flat_max", "type": "Flatten"},
              {"name": "flat_gap", "type": "Flatten"},
              {"name": "joined", "type": "Concatenate"},
              {"name": "bn2", "type": "BatchNormalization"},
              {"name": "tanh", "type": "Activation", "params": {"activation": "tanh"}},
              {"name": "drop", "type": "Dropout", "params": {"rate": 0.25}},
              {"name": "fc1", "type": "Dense", "params": {"units": 8}},
              {"name": "sigmoid", "type": "Activation", "params": {"activation": "sigmoid"}},
              {"name": "out", "type": "Dense", "params": {"units": 3, "initializer": "glorot_uniform"}}],
    "edges": [{"from": "input", "to": "conv1"}, {"from": "conv1", "to": "bn1"}, {"from": "bn1", "to": "leaky"},
              {"from": "leaky", "to": "conv-2"}, {"from": "leaky", "to": "sum"}, {"from": "conv-2", "to": "sum"},
              {"from": "sum", "to": "avg"}, {"from": "sum", "to": "max"}, {"from": "sum", "to": "gap"},
              {"from": "avg", "to": "flat_avg"}, {"from": "max", "to": "flat_max"}, {"from": "gap", "to": "flat_gap"},
              {"from": "flat_avg", "to": "joined"}, {"from": "flat_max", "to": "joined"},
              {"from": "flat_gap", "to": "joined"}, {"from": "joined", "to": "bn2"}, {"from": "bn2", "to": "tanh"},
              {"from": "tanh", "to": "drop"}, {"from": "drop", "to": "fc1"}, {"from": "fc1", "to": "sigmoid"},
              {"from": "sigmoid", "to": "out"}]
  },
  "dataset": {"name": "", "folder": )"
        << nlohmann::json(images.generic_string()).dump() << R"(, "image_size": [10, 10], "channels": 3},
  "training": {"epochs": 2, "batch_size": 8, "seed": 9, "optimizer": {"type": "adam", "learning_rate": 0.01}}
})";
    return file;
}

struct Trained {
    TempDir dir{"cli-export"};
    std::vector<std::filesystem::path> images;
    std::filesystem::path weights;
    std::string files;
    Trained() {
        images = write_colours(dir.path() / "images", 10);
        const std::filesystem::path project = write_every_layer_project(dir.path(), dir.path() / "images");
        weights = dir.path() / "weights.h5";
        std::string train = "train ";
        train += quote(project);
        train += " --save-weights ";
        train += quote(weights);
        const ProcessResult trained = run_command(backprop(train));
        INFO(trained.output);
        REQUIRE(trained.exit_code == 0);
        for (const std::filesystem::path& image : images) {
            files += ' ';
            files += quote(image);
        }
    }
};

}  // namespace bps::test
