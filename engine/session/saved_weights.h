#pragma once
// A weights file opened for use: its arrays and its model card, checked against the project's
// data before any device is touched.
#include <filesystem>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/session/model_card.h"
#include "engine/session/project_data.h"

namespace bps::session {

struct SavedWeights {
    std::filesystem::path file;
    std::vector<io::NamedArray> arrays;
    ModelCard card;
};

// Throws io::WeightsFileError for a damaged file or one without a model card.
SavedWeights read_saved_weights(const std::filesystem::path& file);

// Throws io::WeightsFileError when the weights were trained on other images or classes.
void check_weights_fit(const SavedWeights& weights, const DataFacts& facts);

}  // namespace bps::session
