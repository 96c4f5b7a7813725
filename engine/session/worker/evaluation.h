#pragma once
// Evaluating a trained network on a split and predicting classes for single images, in batches
// of the network's size, in evaluation mode (running BatchNorm statistics, no dropout).
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "datasets/dataset.h"
#include "engine/model/network.h"
#include "engine/runs/reports.h"
#include "engine/session/sample_evaluation.h"

namespace bps::session {

// Over `indices` of `dataset`, or every sample when `indices` is empty. Clears the network's
// metric totals. `each_batch` (optional) is called before every batch: a watchdog's beat.
Evaluation evaluate(model::Network& network, const datasets::Dataset& dataset,
                    std::span<const std::size_t> indices = {}, const std::function<void()>& each_batch = {});

// The same, keeping every sample's probabilities and loss and the confusion matrix: the results
// views' and `backprop evaluate --confusion`'s figures. A network trained on targets (no classes)
// gets `evaluate`'s figures alone.
struct EvaluationWithSamples {
    Evaluation overall;
    std::optional<SampleEvaluation> samples;
};
EvaluationWithSamples evaluate_with_samples(model::Network& network, const datasets::Dataset& dataset,
                                            std::span<const std::size_t> indices = {},
                                            const std::function<void()>& each_batch = {});

// Class probabilities for `count` images (NCHW, the network's input shape each), one vector per
// image.
std::vector<std::vector<float>> predict_probabilities(model::Network& network, std::span<const float> images,
                                                      std::size_t count);

}  // namespace bps::session
