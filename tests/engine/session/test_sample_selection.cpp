// Which samples a gallery shows and in what order (highest loss first, ties in
// the split's order, filtered by a confusion cell, a row or a column), and each
// sample's most probable classes, checked against orders worked out by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/session/sample_selection.h"
#include "tests/engine/session/eight_samples.h"

using namespace bps::session;
using bps::test::eight_samples;

namespace {

using Indices = std::vector<std::size_t>;

}  // namespace

TEST_CASE(
    "every sample, the most confidently wrong first, equal losses in the "
    "split's order",
    "[sample-selection]") {
    const SampleResults samples = eight_samples();
    REQUIRE(samples.predicted == std::vector<int>{0, 0, 2, 0, 2, 2, 0, 1});
    CHECK(samples_by_loss(samples) == Indices{3, 4, 6, 1, 5, 0, 2, 7});
    CHECK(samples_by_loss(samples, SampleFilter{}) == Indices{3, 4, 6, 1, 5, 0, 2, 7});
}

TEST_CASE(
    "a row, a column or one cell of the confusion matrix selects its "
    "samples by loss",
    "[sample-selection]") {
    const SampleResults samples = eight_samples();
    // True class 1: samples 1, 3, 5 and 7.
    CHECK(samples_by_loss(samples, SampleFilter{1, std::nullopt}) == Indices{3, 1, 5, 7});
    // Taken for class 0: samples 0, 1, 3 and 6.
    CHECK(samples_by_loss(samples, SampleFilter{std::nullopt, 0}) == Indices{3, 6, 1, 0});
    // Taken for class 2: samples 2, 4 and 5.
    CHECK(samples_by_loss(samples, SampleFilter{std::nullopt, 2}) == Indices{4, 5, 2});
    // Class 1 taken for class 0: samples 1 and 3.
    CHECK(samples_by_loss(samples, SampleFilter{1, 0}) == Indices{3, 1});
    // The diagonal cell of class 1: sample 7 alone.
    CHECK(samples_by_loss(samples, SampleFilter{1, 1}) == Indices{7});
    // A cell with no sample.
    CHECK(samples_by_loss(samples, SampleFilter{0, 1}).empty());
}

TEST_CASE("a filter naming a class outside the classes is refused", "[sample-selection]") {
    const SampleResults samples = eight_samples();
    REQUIRE_THROWS_AS(samples_by_loss(samples, SampleFilter{3, std::nullopt}), std::invalid_argument);
    REQUIRE_THROWS_WITH(samples_by_loss(samples, SampleFilter{3, std::nullopt}), Catch::Contains("3"));
    REQUIRE_THROWS_AS(samples_by_loss(samples, SampleFilter{std::nullopt, -1}), std::invalid_argument);
    REQUIRE_THROWS_WITH(samples_by_loss(samples, SampleFilter{std::nullopt, -1}), Catch::Contains("-1"));
    REQUIRE_THROWS_AS(samples_by_loss(samples, SampleFilter{0, 7}), std::invalid_argument);
    REQUIRE_THROWS_WITH(samples_by_loss(samples, SampleFilter{0, 7}), Catch::Contains("7"));
}

TEST_CASE("losses that are not numbers come first, in the split's order", "[sample-selection]") {
    // Compared as they are, NaNs would leave the sort without a strict weak ordering.
    SampleResults samples = eight_samples();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    samples.losses[2] = nan;
    samples.losses[5] = nan;
    samples.losses[7] = std::numeric_limits<float>::infinity();
    CHECK(samples_by_loss(samples) == Indices{2, 5, 7, 3, 4, 6, 1, 0});
    CHECK(samples_by_loss(samples, SampleFilter{1, std::nullopt}) == Indices{5, 7, 3, 1});
}

TEST_CASE("10,000 samples with many equal losses come out sorted and complete", "[sample-selection]") {
    // Losses from only 50 values: many ties, each of which must keep the split's
    // order.
    SampleResults samples;
    samples.classes = 4;
    std::mt19937 generator(3);
    std::uniform_int_distribution<int> loss_step(0, 49), label(0, 3);
    for (std::size_t i = 0; i < 10000; ++i) {
        samples.labels.push_back(label(generator));
        samples.predicted.push_back(label(generator));
        samples.losses.push_back(static_cast<float>(loss_step(generator)) * 0.1f);
        samples.probabilities.insert(samples.probabilities.end(), {0.25f, 0.25f, 0.25f, 0.25f});
    }
    const Indices order = samples_by_loss(samples);
    REQUIRE(order.size() == 10000);
    bool in_order = true;
    for (std::size_t i = 1; i < order.size(); ++i) {
        const float before = samples.losses[order[i - 1]], after = samples.losses[order[i]];
        in_order = in_order && (before > after || (before == after && order[i - 1] < order[i]));
    }
    CHECK(in_order);
    Indices sorted = order;
    std::sort(sorted.begin(), sorted.end());
    Indices every(10000);
    std::iota(every.begin(), every.end(), std::size_t{0});
    CHECK(sorted == every);

    const Indices cell = samples_by_loss(samples, SampleFilter{2, 3});
    std::size_t expected = 0;
    for (std::size_t i = 0; i < samples.size(); ++i)
        if (samples.labels[i] == 2 && samples.predicted[i] == 3) ++expected;
    CHECK(cell.size() == expected);
    bool all_in_cell = true;
    for (std::size_t index : cell)
        all_in_cell = all_in_cell && samples.labels[index] == 2 && samples.predicted[index] == 3;
    CHECK(all_in_cell);
}

TEST_CASE("a sample's most probable classes, equal probabilities lower class first", "[sample-selection]") {
    const SampleResults samples = eight_samples();
    const auto labels_of = [](const std::vector<ClassScore> &top) {
        std::vector<int> labels;
        for (const ClassScore &entry : top) labels.push_back(entry.label);
        return labels;
    };

    const std::vector<ClassScore> tied = top_classes(samples, 6, 3);
    CHECK(labels_of(tied) == std::vector<int>{0, 1, 2});
    REQUIRE(tied.size() == 3);
    CHECK(tied[0].probability == 0.4f);
    CHECK(tied[1].probability == 0.4f);
    CHECK(tied[2].probability == 0.2f);

    const std::vector<ClassScore> two = top_classes(samples, 4, 2);
    CHECK(labels_of(two) == std::vector<int>{2, 0});
    REQUIRE(two.size() == 2);
    CHECK(two[0].probability == 0.6f);
    CHECK(two[1].probability == 0.2f);

    // More asked for than there are classes: all three.
    const std::vector<ClassScore> all = top_classes(samples, 7, 10);
    CHECK(labels_of(all) == std::vector<int>{1, 0, 2});
    REQUIRE(all.size() == 3);
    CHECK(all[0].probability == 0.9f);

    CHECK(top_classes(samples, 0, 0).empty());
    CHECK(labels_of(top_classes(samples, 3, 1)) == std::vector<int>{0});
}

TEST_CASE("the top classes of a sample outside the samples are refused", "[sample-selection]") {
    const SampleResults samples = eight_samples();
    REQUIRE_THROWS_AS(top_classes(samples, 8, 3), std::out_of_range);
    REQUIRE_THROWS_WITH(top_classes(samples, 8, 3), Catch::Contains("8"));
}
