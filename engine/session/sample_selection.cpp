#include "engine/session/sample_selection.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace bps::session {

namespace {

void check_class(const std::optional<int>& label, const SampleResults& samples, const char* role) {
    if (label && (*label < 0 || *label >= samples.classes))
        throw std::invalid_argument(std::string("the ") + role + " class " + std::to_string(*label) +
                                    " is outside the network's " + std::to_string(samples.classes) + " classes");
}

}  // namespace

std::vector<std::size_t> samples_by_loss(const SampleResults& samples, const SampleFilter& filter) {
    check_class(filter.true_class, samples, "true");
    check_class(filter.predicted, samples, "predicted");
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (filter.true_class && samples.labels[i] != *filter.true_class) continue;
        if (filter.predicted && samples.predicted[i] != *filter.predicted) continue;
        chosen.push_back(i);
    }
    // Stable: equal losses (a cell of certain answers, all near 0) keep the split's order. A loss
    // that is not a number ranks above every other: compared as it is, it would leave the order
    // undefined (no strict weak ordering), and a diverged answer is the one to see first.
    const auto higher = [&](std::size_t a, std::size_t b) {
        const float first = samples.losses[a], second = samples.losses[b];
        if (std::isnan(first) || std::isnan(second)) return std::isnan(first) && !std::isnan(second);
        return first > second;
    };
    std::stable_sort(chosen.begin(), chosen.end(), higher);
    return chosen;
}

std::vector<ClassScore> top_classes(const SampleResults& samples, std::size_t sample, std::size_t k) {
    if (sample >= samples.size())
        throw std::out_of_range("sample " + std::to_string(sample) + " is outside the " +
                                std::to_string(samples.size()) + " samples evaluated");
    return top_classes(samples.probabilities_of(sample), k);
}

}  // namespace bps::session
