#pragma once
// A project's dataset made ready for training: the validation samples held out of the training
// split (by index, so no image is copied), and every split normalised with the mean and standard
// deviation of the training images when the project asks for it.
#include <cstdint>

#include "datasets/dataset.h"
#include "datasets/feeding.h"
#include "engine/project/project.h"

namespace bps::session {

struct TrainingData {
    datasets::Dataset train;  // all training images; split.train and split.validation index into it
    datasets::Dataset test;   // may be empty (an image folder has no test split)
    datasets::SplitIndices split;
    datasets::Normalization normalization;  // empty when the project does not normalise
};

// Takes the splits over (they can be hundreds of MB). `seed` chooses the validation samples.
TrainingData prepare_training_data(datasets::DatasetSplits splits, const project::DatasetSettings& settings,
                                   std::uint64_t seed);

// Normalises `dataset` the way `data` was (for images predicted or evaluated later).
void normalize_like(datasets::Dataset& dataset, const datasets::Normalization& normalization);

}  // namespace bps::session
