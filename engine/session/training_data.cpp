#include "engine/session/training_data.h"

#include <sstream>
#include <stdexcept>

namespace bps::session {

TrainingData prepare_training_data(datasets::DatasetSplits splits, const project::DatasetSettings& settings,
                                   std::uint64_t seed) {
    TrainingData data;
    data.train = std::move(splits.train);
    data.test = std::move(splits.test);
    data.split = datasets::split_train_validation(data.train.size(), settings.validation_fraction, seed);
    if (data.split.train.empty() && data.train.size() > 0) {
        std::ostringstream problem;
        problem << "the validation fraction (dataset.validation_fraction " << settings.validation_fraction
                << ") holds out all " << data.train.size()
                << " training images, leaving none to train on; lower it, e.g. to 0.1";
        throw std::invalid_argument(problem.str());
    }
    if (settings.normalize) {
        // Statistics of the training split (its validation samples included, a small leak that keeps
        // the statistics one pass over one dataset); the test images never leak into training.
        data.normalization = datasets::compute_normalization(data.train);
        datasets::normalize(data.train, data.normalization);
        if (data.test.size() > 0) datasets::normalize(data.test, data.normalization);
    }
    return data;
}

void normalize_like(datasets::Dataset& dataset, const datasets::Normalization& normalization) {
    if (!normalization.mean.empty()) datasets::normalize(dataset, normalization);
}

}  // namespace bps::session
