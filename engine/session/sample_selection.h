#pragma once
// Which samples of an evaluated split a gallery shows, and in what order: those of one confusion
// cell, one true class or one predicted class, the most confidently wrong first (highest loss
// first), as fast.ai's plot_top_losses orders them; and each sample's most probable classes, for
// its top-3 bar. Plain functions over SampleResults (sample_evaluation.h), no device.
#include <cstddef>
#include <optional>
#include <vector>

#include "engine/runs/reports.h"
#include "engine/session/sample_evaluation.h"

namespace bps::session {

// Both unset: every sample. `true_class` alone: a class's row; `predicted` alone: its column;
// both: one cell of the confusion matrix.
struct SampleFilter {
    std::optional<int> true_class;
    std::optional<int> predicted;
};

// The indices of the samples that pass the filter, highest loss first; equal losses keep the
// split's order, and a loss that is not a number (a diverged network's) comes before all. std::invalid_argument naming
// a class outside [0, samples.classes).
std::vector<std::size_t> samples_by_loss(const SampleResults& samples, const SampleFilter& filter = {});

// The `k` most probable classes of one sample (fewer when there are fewer classes), most probable
// first; equal probabilities: the lower class first (reports.h's top_classes on the sample's
// probabilities). std::out_of_range for a sample outside.
std::vector<ClassScore> top_classes(const SampleResults& samples, std::size_t sample, std::size_t k);

}  // namespace bps::session
