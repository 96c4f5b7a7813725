#include "engine/session/saved_weights.h"

#include <string>

namespace bps::session {

SavedWeights read_saved_weights(const std::filesystem::path& file) {
    SavedWeights weights;
    weights.file = file;
    weights.arrays = io::load_weights(file);
    weights.card = parse_model_card(io::load_weights_description(file), file.string());
    return weights;
}

void check_weights_fit(const SavedWeights& weights, const DataFacts& facts) {
    const datasets::ImageShape& trained = weights.card.shape;
    if (trained.channels != facts.shape.channels || trained.height != facts.shape.height ||
        trained.width != facts.shape.width)
        throw io::WeightsFileError(weights.file, "was trained on " + trained.to_string() + " images but " +
                                                     facts.title + " has " + facts.shape.to_string() + " images");
    if (weights.card.class_names.size() != facts.class_count)
        throw io::WeightsFileError(weights.file, "was trained on " + std::to_string(weights.card.class_names.size()) +
                                                     " classes but " + facts.title + " has " +
                                                     std::to_string(facts.class_count));
}

}  // namespace bps::session
