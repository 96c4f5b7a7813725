#pragma once
// A weights file (or checkpoint) opened for use: its contents, its model card and the project it
// was trained from, checked against the project's data before any device is touched; and saving
// trained weights in Keras's layout with both travelling inside.
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/project/project_data.h"
#include "engine/runs/model_card.h"

namespace bps::session {

struct SavedWeights {
    std::filesystem::path file;
    io::WeightsFile contents;
    std::optional<ModelCard> card;            // absent in a Keras file written by another program
    std::optional<project::Project> project;  // the project trained, when the file holds it
};

// Throws io::WeightsFileError for a damaged file.
SavedWeights read_saved_weights(const std::filesystem::path& file);

// The project `contents` (read from `file`) holds, if any; io::WeightsFileError when it cannot be read.
std::optional<project::Project> embedded_project(const io::WeightsFile& contents, const std::filesystem::path& file);

// The model card, or io::WeightsFileError saying that the file does not say which images and
// classes it was trained on (a Keras file from another program): predicting needs it.
const ModelCard& card_of(const SavedWeights& weights);

// The project stored in the file, or io::WeightsFileError when it holds none. Its `source` for
// messages is the weights file.
project::Project project_of(const SavedWeights& weights);

// Throws io::WeightsFileError when the weights were trained on other images or classes (only
// checked when the file has a model card).
void check_weights_fit(const SavedWeights& weights, const DataFacts& facts);

// The file's weights as the engine's arrays for `project`'s network on `shape` images, whatever
// the file's layout. Throws io::WeightsFileError naming the layer and both shapes on a mismatch.
std::vector<io::NamedArray> weights_for_network(const SavedWeights& weights, const project::Project& project,
                                                const datasets::ImageShape& shape);

// The Keras-layout file of trained weights (the engine's arrays for `project`'s network on
// card.shape images), with the model card and the project inside.
io::WeightsFile trained_weights_file(const project::Project& project, const ModelCard& card,
                                     std::span<const io::NamedArray> arrays, const std::filesystem::path& file);
void save_trained_weights(const std::filesystem::path& file, const project::Project& project, const ModelCard& card,
                          std::span<const io::NamedArray> arrays);

}  // namespace bps::session
