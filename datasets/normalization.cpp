// Per-channel standardisation, measured on the training images and applied to any split.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "datasets/feeding.h"

namespace bps::datasets {

Normalization compute_normalization(const Dataset& train) {
    const auto channels = static_cast<std::size_t>(train.shape.channels);
    const std::size_t plane = train.shape.plane();
    Normalization normalization;
    normalization.mean.assign(channels, 0.0f);
    normalization.stddev.assign(channels, 1.0f);
    if (train.size() == 0 || plane == 0) return normalization;

    // Two passes in double: tens of millions of floats summed in float lose several digits, and
    // the mean of squares minus the squared mean cancels badly for a nearly constant channel.
    std::vector<double> mean(channels, 0.0), squared_deviation(channels, 0.0);
    std::vector<float> lowest(channels), highest(channels);
    for (std::size_t c = 0; c < channels; ++c) lowest[c] = highest[c] = train.image(0)[c * plane];
    for (std::size_t sample = 0; sample < train.size(); ++sample) {
        const std::span<const float> image = train.image(sample);
        for (std::size_t c = 0; c < channels; ++c) {
            for (std::size_t p = 0; p < plane; ++p) {
                const float value = image[c * plane + p];
                mean[c] += value;
                lowest[c] = std::min(lowest[c], value);
                highest[c] = std::max(highest[c], value);
            }
        }
    }
    const double values_per_channel = static_cast<double>(train.size()) * static_cast<double>(plane);
    for (double& value : mean) value /= values_per_channel;
    for (std::size_t sample = 0; sample < train.size(); ++sample) {
        const std::span<const float> image = train.image(sample);
        for (std::size_t c = 0; c < channels; ++c) {
            for (std::size_t p = 0; p < plane; ++p) {
                const double deviation = image[c * plane + p] - mean[c];
                squared_deviation[c] += deviation * deviation;
            }
        }
    }
    for (std::size_t c = 0; c < channels; ++c) {
        normalization.mean[c] = static_cast<float>(mean[c]);
        // A constant channel (a blank border, a greyscale photo stored as RGB) would divide by zero.
        if (lowest[c] != highest[c])
            normalization.stddev[c] = static_cast<float>(std::sqrt(squared_deviation[c] / values_per_channel));
    }
    return normalization;
}

void normalize(Dataset& dataset, const Normalization& normalization) {
    if (!dataset.mean.empty()) {
        std::string message = "'";
        message += dataset.name;
        message += "' is already normalised";
        throw std::logic_error(message);
    }
    const auto channels = static_cast<std::size_t>(dataset.shape.channels);
    if (normalization.mean.size() != channels || normalization.stddev.size() != channels) {
        std::string message = "'";
        message += dataset.name;
        message += "' has ";
        message += std::to_string(channels);
        message += " channels but the normalisation has ";
        message += std::to_string(normalization.mean.size());
        message += " means and ";
        message += std::to_string(normalization.stddev.size());
        message += " standard deviations";
        throw std::logic_error(message);
    }
    const std::size_t plane = dataset.shape.plane();
    for (std::size_t sample = 0; sample < dataset.size(); ++sample) {
        const std::span<float> image = dataset.image(sample);
        for (std::size_t c = 0; c < channels; ++c) {
            const float mean = normalization.mean[c], stddev = normalization.stddev[c];
            for (std::size_t p = 0; p < plane; ++p) image[c * plane + p] = (image[c * plane + p] - mean) / stddev;
        }
    }
    dataset.mean = normalization.mean;
    dataset.stddev = normalization.stddev;
}

}  // namespace bps::datasets
