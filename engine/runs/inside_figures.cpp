#include "engine/runs/inside_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bps::session {

ValueFigures value_figures(std::span<const float> values, int bins) {
    ValueFigures figures;
    figures.histogram.counts.assign(static_cast<std::size_t>(std::max(bins, 1)), 0);
    figures.count = values.size();
    if (values.empty()) return figures;

    // Sums in double: a layer of millions of floats keeps its mean and deviation exact enough.
    double sum = 0;
    for (const float value : values) sum += value;
    figures.mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (const float value : values) {
        const double difference = value - figures.mean;
        squares += difference * difference;
    }
    figures.deviation = std::sqrt(squares / static_cast<double>(values.size()));

    // Min and max of the values that are numbers (an infinity is one, and shows); the histogram
    // spans the largest finite magnitude.
    float low = std::numeric_limits<float>::infinity(), high = -std::numeric_limits<float>::infinity();
    float magnitude = 0;
    for (const float value : values) {
        if (std::isnan(value)) continue;
        low = std::min(low, value);
        high = std::max(high, value);
        if (std::isfinite(value)) magnitude = std::max(magnitude, std::abs(value));
    }
    if (low <= high) {
        figures.min = low;
        figures.max = high;
    } else {  // nothing but NaN
        figures.min = figures.max = std::numeric_limits<float>::quiet_NaN();
    }
    Histogram& histogram = figures.histogram;
    histogram.low = -magnitude;
    histogram.high = magnitude;
    const std::size_t bin_count = histogram.counts.size();
    for (const float value : values) {
        if (!std::isfinite(value)) continue;
        std::size_t bin = bin_count / 2;  // all zeros: the bin at the centre
        if (magnitude > 0) {
            const double place =
                (static_cast<double>(value) + magnitude) / (2.0 * magnitude) * static_cast<double>(bin_count);
            bin = std::min(bin_count - 1, static_cast<std::size_t>(std::max(place, 0.0)));
        }
        ++histogram.counts[bin];
    }
    return figures;
}

double zero_fraction(std::span<const float> values) {
    if (values.empty()) return 0;
    const auto zeros = std::count(values.begin(), values.end(), 0.0f);
    return static_cast<double>(zeros) / static_cast<double>(values.size());
}

namespace {

std::size_t element_count(const std::vector<int>& dims) {
    std::size_t count = 1;
    for (const int dim : dims) count *= static_cast<std::size_t>(std::max(dim, 0));
    return count;
}

std::string joined(const std::vector<int>& dims) {
    std::string text;
    for (const int dim : dims) {
        if (!text.empty()) text += 'x';
        text += std::to_string(dim);
    }
    return text;
}

// A Conv2D kernel (out x in x kh x kw in the engine) as Keras counts it: filters x kh x kw x in.
std::string term(const std::vector<int>& dims) {
    if (dims.size() == 4) return joined({dims[0], dims[2], dims[3], dims[1]});
    return joined(dims);
}

}  // namespace

std::string parameter_formula(std::span<const io::NamedArray> layer_arrays) {
    if (layer_arrays.empty()) return "0";
    std::size_t total = 0;
    for (const io::NamedArray& array : layer_arrays) total += element_count(array.dims);
    // Arrays that are all one vector's length (BatchNorm's gamma, beta and running statistics):
    // "4x64" rather than "64 + 64 + 64 + 64".
    const bool equal_vectors =
        layer_arrays.size() > 1 && std::all_of(layer_arrays.begin(), layer_arrays.end(), [&](const io::NamedArray& a) {
            return a.dims.size() == 1 && a.dims == layer_arrays.front().dims;
        });
    std::string text;
    if (equal_vectors) {
        text = std::to_string(layer_arrays.size()) + "x" + std::to_string(layer_arrays.front().dims[0]);
    } else {
        for (const io::NamedArray& array : layer_arrays) {
            if (!text.empty()) text += " + ";
            text += term(array.dims);
        }
    }
    text += " = ";
    text += std::to_string(total);
    return text;
}

std::vector<io::NamedArray> arrays_of_layer(std::span<const io::NamedArray> arrays, const std::string& layer) {
    std::vector<io::NamedArray> found;
    const std::string prefix = layer + ".";
    for (const io::NamedArray& array : arrays)
        if (array.name.size() > prefix.size() && array.name.compare(0, prefix.size(), prefix) == 0)
            found.push_back(array);
    return found;
}

}  // namespace bps::session
