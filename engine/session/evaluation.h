#pragma once
// Evaluating a trained network on a split and predicting classes for single images, in batches
// of the network's size, in evaluation mode (running BatchNorm statistics, no dropout).
#include <cstddef>
#include <span>
#include <vector>

#include "datasets/dataset.h"
#include "engine/model/network.h"

namespace bps::session {

struct Evaluation {
    double loss = 0;      // mean cross-entropy per sample
    double accuracy = 0;  // fraction of samples whose top class is the label
    std::size_t samples = 0;
};

// Over `indices` of `dataset`, or every sample when `indices` is empty. Clears the network's
// metric totals.
Evaluation evaluate(model::Network& network, const datasets::Dataset& dataset,
                    std::span<const std::size_t> indices = {});

struct ClassScore {
    int label = 0;
    float probability = 0;
};

// Class probabilities for `count` images (NCHW, the network's input shape each), one vector per
// image.
std::vector<std::vector<float>> predict_probabilities(model::Network& network, std::span<const float> images,
                                                      std::size_t count);

// The `k` most probable classes, most probable first (ties: the lower label first).
std::vector<ClassScore> top_classes(std::span<const float> probabilities, std::size_t k);

}  // namespace bps::session
