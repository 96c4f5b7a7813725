#pragma once
// What a weights file must remember besides the weights so that `backprop predict` can use it
// without the training data: the project it came from, the image shape, the class names and the
// normalisation the network was trained with. Stored as JSON in the weights file's description.
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/feeding.h"

namespace bps::session {

struct ModelCard {
    std::string project;  // the project's name
    datasets::ImageShape shape;
    std::vector<std::string> class_names;
    datasets::Normalization normalization;  // empty: pixels in [0,1]
};

// The card of a network trained on `train` (its shape and classes) normalised with `normalization`:
// the one place a card is filled; every weights file a run writes carries this card.
ModelCard model_card_for(const std::string& project, const datasets::Dataset& train,
                         const datasets::Normalization& normalization);

std::string model_card_json(const ModelCard& card);
// Throws io::WeightsFileError naming `source` when the text is not a model card.
ModelCard parse_model_card(const std::string& text, const std::string& source);

}  // namespace bps::session
