#pragma once
// What a trained network got right and wrong, image by image: every sample's predicted class,
// probabilities and loss, with the confusion matrix (confusion_matrix.h) they add up to. Plain
// values with no device behind them, for the results views, `backprop evaluate --confusion` and
// the course's checks.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/runs/confusion_matrix.h"
#include "engine/runs/reports.h"

namespace bps::session {

// Every sample of an evaluated split, in the split's order.
struct SampleResults {
    int classes = 0;
    std::vector<int> labels, predicted;
    std::vector<float> losses;         // cross-entropy: -ln of the label's probability
    std::vector<float> probabilities;  // size() x classes
    std::size_t size() const { return labels.size(); }
    std::span<const float> probabilities_of(std::size_t sample) const;
};

// The confusion matrix, the overall figures and every sample's results, from the probabilities
// a network gave (samples x classes, in class order) and the labels. `losses`: each sample's loss
// as the device computed it from the logits (more exact for a probability that rounds to 0);
// empty: -ln of the label's probability. std::invalid_argument for sizes that do not match or a
// label outside the classes.
struct SampleEvaluation {
    Evaluation overall;
    ConfusionMatrix confusion;
    SampleResults samples;
};
SampleEvaluation evaluate_probabilities(std::span<const float> probabilities, std::span<const int> labels, int classes,
                                        std::span<const float> losses = {});

}  // namespace bps::session
