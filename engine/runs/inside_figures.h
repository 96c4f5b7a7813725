#pragma once
// Figures that describe a layer's numbers for a learner looking inside the network: the spread of
// its weights and of their gradients (mean, standard deviation, a histogram), the share of a ReLU's
// outputs that are zero on one image, and how its parameter count is made up. Plain host values,
// for the Inside view (live, replayed or of a finished run) and the replay files alike.
//
//     const auto figures = session::value_figures(conv1_weight.values);   // mean, std, histogram
//     session::parameter_formula(layer_arrays);                          // "32x3x3x1 + 32 = 320"
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"

namespace bps::session {

// Equal-width bins over [low, high]; a value equal to high falls in the last bin.
struct Histogram {
    float low = 0, high = 0;
    std::vector<std::uint32_t> counts;
};

struct ValueFigures {
    std::size_t count = 0;
    double mean = 0, deviation = 0;  // deviation: the population standard deviation
    float min = 0, max = 0;
    // Symmetric about zero ([-m, m] with m the largest magnitude), so that a histogram of weights
    // or gradients shows its centre at zero whatever the epoch; NaN and infinite values are not
    // counted here (they make `mean` NaN, which says enough).
    Histogram histogram;
};

inline constexpr int default_histogram_bins = 48;

// The figures of `values`; all zero (an empty histogram of `bins` zeros) for no values.
ValueFigures value_figures(std::span<const float> values, int bins = default_histogram_bins);

// The share of `values` that are exactly zero (what a ReLU's output holds where it is off); 0 for
// no values.
double zero_fraction(std::span<const float> values);

// How a layer's parameter count is made up, from its arrays in the engine's order and axes (as
// io::download_parameters names them: "conv1.weight" out x in x kh x kw, "conv1.bias", "fc1.weight"
// units x inputs, a BatchNorm's gamma, beta and running statistics): a Conv2D kernel is written
// filters x kh x kw x in, as Keras's summaries count it. "32x3x3x1 + 32 = 320", "10x128 + 10 = 1290",
// "4x64 = 256" (BatchNorm's four arrays of 64); "0" for a layer with none.
std::string parameter_formula(std::span<const io::NamedArray> layer_arrays);

// The arrays of `arrays` that belong to `layer` ("<layer>.<what>"), in their order.
std::vector<io::NamedArray> arrays_of_layer(std::span<const io::NamedArray> arrays, const std::string& layer);

}  // namespace bps::session
