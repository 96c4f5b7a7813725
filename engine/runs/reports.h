#pragma once
// What a training job tells its caller, as plain values with no device behind them: the figures of
// a batch, an epoch, an evaluation and a prediction. The CLI prints them; the studio plots them.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/runs/confusion_matrix.h"

namespace bps::session {

struct Evaluation {
    double loss = 0;      // mean cross-entropy per sample
    double accuracy = 0;  // fraction of samples whose top class is the label
    std::size_t samples = 0;
};

struct ClassScore {
    int label = 0;
    float probability = 0;
};

// The running figures of the epoch in progress, sent on a timer (see JobSetup::report_interval).
struct BatchReport {
    int epoch = 0;  // 0-based
    int epochs = 0;
    std::size_t batch = 0;  // batches done in this epoch, 1-based
    std::size_t batches = 0;
    double loss = 0;      // mean over this epoch's samples so far
    double accuracy = 0;  // the same
    // The mean over the batches since the previous report of this epoch (all of them when none
    // was sent): the "raw" points of a learning curve, which the epoch's running mean smooths away.
    double recent_loss = 0, recent_accuracy = 0;
    double images_per_second = 0;
    double epoch_seconds = 0;  // since the epoch began
    float learning_rate = 0;   // the rate of the last batch counted here
    // Where the report stands in epochs, fractional: epoch + batch / batches (the curves' x).
    double position() const {
        return static_cast<double>(epoch) +
               static_cast<double>(batch) / static_cast<double>(batches == 0 ? 1 : batches);
    }
};

struct EpochReport {
    int epoch = 0;
    int epochs = 0;
    double train_loss = 0, train_accuracy = 0;
    std::optional<Evaluation> validation;
    // Which classes the validation images were taken for (a classifier's), epoch by epoch.
    std::optional<ConfusionMatrix> validation_confusion;
    double seconds = 0;  // training only, validation excluded
    double images_per_second = 0;
};

// The `k` most probable classes, most probable first (ties: the lower label first).
std::vector<ClassScore> top_classes(std::span<const float> probabilities, std::size_t k);

}  // namespace bps::session
