// The figures the Inside view shows per layer: mean, population deviation, min, max and a
// histogram symmetric about zero (NaN and infinities left out of it), the share of zeros, and the
// parameter formula as Keras's summaries count it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "engine/runs/inside_figures.h"

using namespace bps;
using namespace bps::session;

TEST_CASE("value figures of a few values equal those worked out by hand", "[inside]") {
    const std::vector<float> values{1.5f, -2.0f, 0.5f, 3.0f, -1.0f};
    const ValueFigures figures = value_figures(values, 6);
    CHECK(figures.count == 5);
    CHECK(figures.mean == Approx(0.4));
    // (1.1^2 + 2.4^2 + 0.1^2 + 2.6^2 + 1.4^2) / 5 = 15.7 / 5 = 3.14
    CHECK(figures.deviation == Approx(std::sqrt(3.14)));
    CHECK(figures.min == -2.0f);
    CHECK(figures.max == 3.0f);
    // [-3, 3] in six bins of 1: -2 in [-2,-1), -1 in [-1,0), 0.5 in [0,1), 1.5 in [1,2), 3 (= high) in the last.
    CHECK(figures.histogram.low == -3.0f);
    CHECK(figures.histogram.high == 3.0f);
    CHECK(figures.histogram.counts == std::vector<std::uint32_t>{0, 1, 1, 1, 1, 1});
}

TEST_CASE("value figures of random values agree with a direct computation, and every value is binned", "[inside]") {
    std::mt19937 generator(5);
    std::normal_distribution<float> normal(0.3f, 0.05f);
    std::vector<float> values(1000);
    for (float& value : values) value = normal(generator);
    const ValueFigures figures = value_figures(values);
    double sum = 0, squares = 0;
    for (const float value : values) sum += value;
    const double mean = sum / 1000.0;
    for (const float value : values) squares += (value - mean) * (value - mean);
    CHECK(figures.count == 1000);
    CHECK(figures.mean == Approx(mean).epsilon(1e-12));
    CHECK(figures.deviation == Approx(std::sqrt(squares / 1000.0)).epsilon(1e-12));
    CHECK(figures.min == *std::min_element(values.begin(), values.end()));
    CHECK(figures.max == *std::max_element(values.begin(), values.end()));
    // All positive: the histogram still spans [-max, max], so its centre is zero.
    CHECK(figures.histogram.low == -figures.max);
    CHECK(figures.histogram.high == figures.max);
    REQUIRE(figures.histogram.counts.size() == static_cast<std::size_t>(default_histogram_bins));
    CHECK(std::accumulate(figures.histogram.counts.begin(), figures.histogram.counts.end(), 0u) == 1000u);
    // Nothing below zero: the lower half of the bins is empty.
    for (int bin = 0; bin < default_histogram_bins / 2; ++bin) CHECK(figures.histogram.counts[bin] == 0);
    // Each value in the bin its place says.
    std::vector<std::uint32_t> expected(default_histogram_bins, 0);
    const double width = 2.0 * figures.max / default_histogram_bins;
    for (const float value : values)
        ++expected[std::min<std::size_t>(default_histogram_bins - 1,
                                         static_cast<std::size_t>((value + figures.max) / width))];
    CHECK(figures.histogram.counts == expected);
}

TEST_CASE("NaN and infinite values are not binned, and make the mean not a number", "[inside]") {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> values{0.25f, std::numeric_limits<float>::quiet_NaN(), -0.5f, inf};
    const ValueFigures figures = value_figures(values, 4);
    CHECK(figures.count == 4);
    CHECK(std::isnan(figures.mean));
    CHECK(figures.min == -0.5f);
    CHECK(figures.max == inf);
    CHECK(figures.histogram.low == -0.5f);
    CHECK(figures.histogram.high == 0.5f);
    CHECK(figures.histogram.counts == std::vector<std::uint32_t>{1, 0, 0, 1});
}

TEST_CASE("no values give zero figures and an empty histogram of the bins asked for", "[inside]") {
    const ValueFigures figures = value_figures({}, 5);
    CHECK(figures.count == 0);
    CHECK(figures.mean == 0);
    CHECK(figures.deviation == 0);
    CHECK(figures.histogram.counts == std::vector<std::uint32_t>(5, 0));
    CHECK(zero_fraction({}) == 0);
}

TEST_CASE("the zero fraction counts exact zeros only", "[inside]") {
    std::mt19937 generator(9);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(400);
    std::size_t zeros = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float value = uniform(generator);
        values[i] = value < 0 ? 0.0f : value;  // as a ReLU leaves them
        zeros += values[i] == 0.0f;
    }
    values.push_back(1e-30f);  // tiny, not zero
    CHECK(zeros > 100);
    CHECK(zero_fraction(values) == Approx(static_cast<double>(zeros) / 401.0));
}

TEST_CASE("parameter formulas write a Conv2D kernel as filters x kh x kw x in, as Keras counts it", "[inside]") {
    const auto array = [](std::string name, std::vector<int> dims) {
        std::size_t size = 1;
        for (const int dim : dims) size *= static_cast<std::size_t>(dim);
        return io::NamedArray{std::move(name), std::move(dims), std::vector<float>(size, 0.5f)};
    };
    const std::vector<io::NamedArray> conv1{array("conv1.weight", {32, 1, 3, 3}), array("conv1.bias", {32})};
    CHECK(parameter_formula(conv1) == "32x3x3x1 + 32 = 320");
    const std::vector<io::NamedArray> conv2{array("conv2.weight", {64, 32, 5, 3}), array("conv2.bias", {64})};
    CHECK(parameter_formula(conv2) == "64x5x3x32 + 64 = 30784");
    const std::vector<io::NamedArray> dense{array("fc2.weight", {10, 128}), array("fc2.bias", {10})};
    CHECK(parameter_formula(dense) == "10x128 + 10 = 1290");
    const std::vector<io::NamedArray> batch_norm{array("bn.gamma", {64}), array("bn.beta", {64}),
                                                 array("bn.running_mean", {64}), array("bn.running_var", {64})};
    CHECK(parameter_formula(batch_norm) == "4x64 = 256");
    CHECK(parameter_formula({}) == "0");

    // A layer's arrays out of a network's, in order; "fc1" is not "fc10".
    std::vector<io::NamedArray> all = conv1;
    all.push_back(array("fc1.weight", {3, 4}));
    all.push_back(array("fc10.weight", {2, 3}));
    all.push_back(array("fc1.bias", {3}));
    const std::vector<io::NamedArray> fc1 = arrays_of_layer(all, "fc1");
    REQUIRE(fc1.size() == 2);
    CHECK(fc1[0].name == "fc1.weight");
    CHECK(fc1[1].name == "fc1.bias");
    CHECK(parameter_formula(fc1) == "3x4 + 3 = 15");
    CHECK(arrays_of_layer(all, "relu").empty());
}
