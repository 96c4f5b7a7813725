#include "datasets/dataset.h"

#include <algorithm>
#include <cmath>

namespace bps::datasets {

std::string ImageShape::to_string() const {
    std::string text = std::to_string(channels);
    text += "x";
    text += std::to_string(height);
    text += "x";
    text += std::to_string(width);
    return text;
}

std::span<const float> Dataset::image(std::size_t index) const {
    if (index >= size())
        throw std::out_of_range("sample " + std::to_string(index) + " is past the end of '" + name + "'");
    return std::span<const float>(images).subspan(index * shape.per_sample(), shape.per_sample());
}

std::span<float> Dataset::image(std::size_t index) {
    if (index >= size())
        throw std::out_of_range("sample " + std::to_string(index) + " is past the end of '" + name + "'");
    return std::span<float>(images).subspan(index * shape.per_sample(), shape.per_sample());
}

std::vector<std::uint8_t> Dataset::pixels(std::size_t index) const {
    const std::span<const float> planes = image(index);
    const std::size_t plane = shape.plane();
    const auto channels = static_cast<std::size_t>(shape.channels);
    std::vector<std::uint8_t> out(plane * channels);
    for (std::size_t c = 0; c < channels; ++c) {
        const float scale = stddev.empty() ? 1.0f : stddev[c];
        const float shift = mean.empty() ? 0.0f : mean[c];
        for (std::size_t p = 0; p < plane; ++p) {
            const float value = planes[c * plane + p] * scale + shift;
            out[p * channels + c] = static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0f, 1.0f) * 255.0f));
        }
    }
    return out;
}

std::vector<std::size_t> Dataset::class_histogram() const {
    std::vector<std::size_t> counts(class_count(), 0);
    for (std::int32_t label : labels) ++counts.at(static_cast<std::size_t>(label));
    return counts;
}

namespace {

// "FILE: problem", the form of every dataset error.
std::string describe_problem(const std::filesystem::path& file, const std::string& problem) {
    std::string text = file.string();
    text += ": ";
    text += problem;
    return text;
}

}  // namespace

DatasetError::DatasetError(const std::filesystem::path& file, const std::string& problem)
    : std::runtime_error(describe_problem(file, problem)), file_(file) {}

}  // namespace bps::datasets
