#pragma once
// A small image-folder project for CLI tests: two classes of 8x8 stripes that a small MLP tells
// apart after a few epochs, so each run takes a second or two.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "tests/support/image_writer.h"
#include "tests/support/quote.h"

namespace bps::test {

// "rows" images have bright horizontal stripes, "columns" vertical ones, at random phase and
// brightness: a small MLP tells them apart after a few epochs, but not before training.
inline void write_stripes(const std::filesystem::path& folder, int per_class) {
    std::mt19937 generator(5);
    for (const std::string kind : {"columns", "rows"}) {
        std::filesystem::create_directories(folder / kind);
        for (int i = 0; i < per_class; ++i) {
            std::vector<std::uint8_t> pixels(64);
            const int phase = static_cast<int>(generator() % 2);
            const int bright = 150 + static_cast<int>(generator() % 100);
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    const int along = kind == "rows" ? y : x;
                    const int noise = static_cast<int>(generator() % 40);
                    pixels[static_cast<std::size_t>(y * 8 + x)] =
                        static_cast<std::uint8_t>((along % 2 == phase ? bright : 0) + noise);
                }
            write_test_png(folder / kind / (std::to_string(i) + ".png"), 8, 8, 1, pixels);
        }
    }
}

inline std::filesystem::path write_project(const std::filesystem::path& dir, const std::filesystem::path& images,
                                           int output_units = 2) {
    const std::filesystem::path file = dir / "stripes.json";
    std::ofstream out(file);
    out << R"({
  "format": "backprop-studio-project", "version": 1, "name": "stripes",
  "network": {
    "nodes": [{"name": "input", "type": "Input"}, {"name": "flatten", "type": "Flatten"},
              {"name": "fc1", "type": "Dense", "params": {"units": 16}},
              {"name": "relu", "type": "Activation", "params": {"activation": "relu"}},
              {"name": "out", "type": "Dense", "params": {"units": )"
        << output_units << R"(, "initializer": "glorot_uniform"}}],
    "edges": [{"from": "input", "to": "flatten"}, {"from": "flatten", "to": "fc1"}, {"from": "fc1", "to": "relu"},
              {"from": "relu", "to": "out"}]
  },
  "dataset": {"name": "", "folder": )"
        << nlohmann::json(images.generic_string()).dump() << R"(, "image_size": [8, 8], "channels": 1,
              "validation_fraction": 0.25},
  "training": {"epochs": 8, "batch_size": 8, "seed": 3, "optimizer": {"type": "sgd", "learning_rate": 0.05}}
})";
    return file;
}

// The stripes project (`per_class` images of each class in DIR/images) with `change` applied to its JSON.
template <typename Change>
std::filesystem::path changed_stripes_project(const std::filesystem::path& dir, int per_class, Change change) {
    write_stripes(dir / "images", per_class);
    const std::filesystem::path file = write_project(dir, dir / "images");
    nlohmann::json project = nlohmann::json::parse(std::ifstream(file));
    change(project);
    std::ofstream(file) << project.dump(2);
    return file;
}

// A file's bytes, to show that a command left it as it was.
inline std::string file_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

}  // namespace bps::test
