#include "engine/session/sample_evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bps::session {

std::span<const float> SampleResults::probabilities_of(std::size_t sample) const {
    const auto per_sample = static_cast<std::size_t>(classes);
    return std::span<const float>(probabilities).subspan(sample * per_sample, per_sample);
}

SampleEvaluation evaluate_probabilities(std::span<const float> probabilities, std::span<const int> labels, int classes,
                                        std::span<const float> losses) {
    if (classes < 1) throw std::invalid_argument("an evaluation needs at least one class");
    const auto per_sample = static_cast<std::size_t>(classes);
    if (probabilities.size() != labels.size() * per_sample)
        throw std::invalid_argument(std::to_string(probabilities.size()) + " probabilities for " +
                                    std::to_string(labels.size()) + " samples of " + std::to_string(classes) +
                                    " classes");
    if (!losses.empty() && losses.size() != labels.size())
        throw std::invalid_argument(std::to_string(losses.size()) + " losses for " + std::to_string(labels.size()) +
                                    " samples");
    SampleEvaluation result;
    result.confusion = ConfusionMatrix(classes);
    SampleResults& samples = result.samples;
    samples.classes = classes;
    samples.labels.assign(labels.begin(), labels.end());
    samples.probabilities.assign(probabilities.begin(), probabilities.end());
    double loss_sum = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::span<const float> row = probabilities.subspan(i * per_sample, per_sample);
        // The first of equal probabilities, as the device's metrics count a correct prediction.
        const int predicted = static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin());
        result.confusion.add(labels[i], predicted);
        // A probability that rounded to 0 in float gives float's largest finite loss, not infinity.
        const float p = row[static_cast<std::size_t>(labels[i])];
        const float loss = !losses.empty() ? losses[i]
                           : p > 0         ? -std::log(p)
                                           : -std::log(std::numeric_limits<float>::min());
        samples.predicted.push_back(predicted);
        samples.losses.push_back(loss);
        loss_sum += loss;
    }
    result.overall.samples = labels.size();
    if (!labels.empty()) {
        result.overall.loss = loss_sum / static_cast<double>(labels.size());
        result.overall.accuracy = static_cast<double>(result.confusion.correct()) / static_cast<double>(labels.size());
    }
    return result;
}

}  // namespace bps::session
