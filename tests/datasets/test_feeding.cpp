#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "datasets/feeding.h"

using namespace bps;
using datasets::Augmentation;
using datasets::Dataset;
using datasets::ImageShape;

namespace {

// Random non-zero pixels of the form k/255 (k in 1..255), as a reader of 8-bit images gives.
Dataset make_dataset(std::size_t count, ImageShape shape, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> level(1, 255), label(0, 2);
    Dataset dataset;
    dataset.name = "feeding test";
    dataset.shape = shape;
    dataset.class_names = {"a", "b", "c"};
    for (std::size_t i = 0; i < count * shape.per_sample(); ++i)
        dataset.images.push_back(static_cast<float>(level(generator)) / 255.0f);
    for (std::size_t i = 0; i < count; ++i) dataset.labels.push_back(label(generator));
    return dataset;
}

std::vector<std::size_t> zero_to(std::size_t count) {
    std::vector<std::size_t> indices(count);
    std::iota(indices.begin(), indices.end(), std::size_t{0});
    return indices;
}

// Whether `output` equals `input` moved so that output(y, x) = input(y + sy, x + sx), zero outside.
bool is_shift(std::span<const float> input, std::span<const float> output, int height, int width, int sy, int sx) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int from_y = y + sy, from_x = x + sx;
            const bool inside = from_y >= 0 && from_y < height && from_x >= 0 && from_x < width;
            const float expected = inside ? input[static_cast<std::size_t>(from_y * width + from_x)] : 0.0f;
            if (output[static_cast<std::size_t>(y * width + x)] != expected) return false;
        }
    }
    return true;
}

std::vector<float> mirrored(std::span<const float> image, const ImageShape& shape) {
    std::vector<float> out(image.begin(), image.end());
    for (int row = 0; row < shape.channels * shape.height; ++row)
        for (int x = 0; x < shape.width; ++x)
            out[static_cast<std::size_t>(row * shape.width + x)] =
                image[static_cast<std::size_t>(row * shape.width + shape.width - 1 - x)];
    return out;
}

std::vector<float> to_vector(std::span<const float> values) {
    return {values.begin(), values.end()};
}

}  // namespace

TEST_CASE("draw_below is uniform, stays below the bound and refuses a zero bound", "[feeding]") {
    std::mt19937_64 generator(7);
    std::vector<int> buckets(6, 0);
    for (int i = 0; i < 60000; ++i) {
        const std::uint64_t value = datasets::draw_below(generator, 6);
        REQUIRE(value < 6);
        ++buckets[value];
    }
    for (int count : buckets) CHECK(std::abs(count - 10000) < 1000);

    // A bound just above 2^63 rejects nearly half the outputs: the results must still stay below it.
    const std::uint64_t huge = (std::uint64_t{1} << 63) + 12345;
    bool upper_half_seen = false;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t value = datasets::draw_below(generator, huge);
        REQUIRE(value < huge);
        upper_half_seen = upper_half_seen || value >= (std::uint64_t{1} << 62);
    }
    CHECK(upper_half_seen);

    for (int i = 0; i < 10; ++i) CHECK(datasets::draw_below(generator, 1) == 0);
    CHECK_THROWS_AS(datasets::draw_below(generator, 0), std::invalid_argument);
}

TEST_CASE("The validation split is disjoint, complete, sorted and repeatable", "[feeding]") {
    const datasets::SplitIndices split = datasets::split_train_validation(1000, 0.1, 3);
    CHECK(split.validation.size() == 100);
    CHECK(split.train.size() == 900);
    CHECK(std::is_sorted(split.validation.begin(), split.validation.end()));
    CHECK(std::is_sorted(split.train.begin(), split.train.end()));
    std::vector<std::size_t> all = split.train;
    all.insert(all.end(), split.validation.begin(), split.validation.end());
    std::sort(all.begin(), all.end());
    CHECK(all == zero_to(1000));  // disjoint and complete: every index exactly once

    const datasets::SplitIndices again = datasets::split_train_validation(1000, 0.1, 3);
    CHECK(again.validation == split.validation);
    CHECK(again.train == split.train);
    CHECK(datasets::split_train_validation(1000, 0.1, 4).validation != split.validation);
    // Not simply the first or last tenth.
    CHECK(split.validation.front() < 100);
    CHECK(split.validation.back() >= 900);

    CHECK(datasets::split_train_validation(7, 0.5, 1).validation.size() == 4);  // round(3.5)
    const datasets::SplitIndices none = datasets::split_train_validation(50, 0.0, 1);
    CHECK(none.validation.empty());
    CHECK(none.train == zero_to(50));
}

TEST_CASE("A validation fraction below 0 or from 1 up is refused with the value", "[feeding]") {
    REQUIRE_THROWS_AS(datasets::split_train_validation(10, 1.5, 0), std::invalid_argument);
    REQUIRE_THROWS_WITH(datasets::split_train_validation(10, 1.5, 0), "validation fraction 1.5 is outside [0, 1)");
    REQUIRE_THROWS_WITH(datasets::split_train_validation(10, 1.0, 0), "validation fraction 1 is outside [0, 1)");
    REQUIRE_THROWS_WITH(datasets::split_train_validation(10, -0.25, 0), "validation fraction -0.25 is outside [0, 1)");
    REQUIRE_THROWS_AS(datasets::split_train_validation(10, std::nan(""), 0), std::invalid_argument);
}

TEST_CASE("An epoch order is a permutation fixed by seed and epoch", "[feeding]") {
    const std::vector<std::size_t> indices = {3, 8, 15, 16, 23, 42, 50, 51, 60, 77, 90, 99};
    const std::vector<std::size_t> order = datasets::epoch_order(indices, 5, 2);
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == indices);
    CHECK(order != indices);
    CHECK(datasets::epoch_order(indices, 5, 2) == order);
    CHECK(datasets::epoch_order(indices, 5, 3) != order);
    CHECK(datasets::epoch_order(indices, 6, 2) != order);
    CHECK(datasets::epoch_order(indices, 5, 2, false) == indices);

    // Pins portability: mt19937_64, draw_below, Fisher–Yates and the (seed, epoch) mix are all
    // fixed, so these values must come out on every compiler and platform. If this changes,
    // every saved run replays a different order.
    const std::vector<std::size_t> ten = zero_to(10);
    const std::vector<std::size_t> pinned = datasets::epoch_order(ten, 42, 0);
    CHECK(std::vector<std::size_t>(pinned.begin(), pinned.begin() + 5) == std::vector<std::size_t>{2, 9, 0, 7, 3});
}

TEST_CASE("Batches follow the order, the last one holding the rest", "[feeding]") {
    const Dataset dataset = make_dataset(10, {1, 3, 2}, 11);
    const std::vector<std::size_t> order = datasets::epoch_order(zero_to(10), 9, 0);
    datasets::BatchIterator batches(dataset, order, 4);
    CHECK(batches.batch_count() == 3);

    datasets::Batch batch;
    std::vector<std::size_t> sizes, seen;
    while (batches.next(batch)) {
        sizes.push_back(batch.count());
        REQUIRE(batch.indices.size() == batch.count());
        REQUIRE(batch.images.size() == batch.count() * 6);
        // A batch says where it starts in the epoch's order (what a set on the device gathers from).
        CHECK(batch.first == seen.size());
        CHECK(std::vector<std::size_t>(
                  batches.order().begin() + static_cast<std::ptrdiff_t>(batch.first),
                  batches.order().begin() + static_cast<std::ptrdiff_t>(batch.first + batch.count())) == batch.indices);
        for (std::size_t i = 0; i < batch.count(); ++i) {
            const std::size_t index = batch.indices[i];
            CHECK(index == order[seen.size()]);
            CHECK(batch.labels[i] == dataset.labels[index]);
            CHECK(std::vector<float>(batch.images.begin() + static_cast<std::ptrdiff_t>(i * 6),
                                     batch.images.begin() + static_cast<std::ptrdiff_t>(i * 6 + 6)) ==
                  to_vector(dataset.image(index)));
            seen.push_back(index);
        }
    }
    CHECK(sizes == std::vector<std::size_t>{4, 4, 2});
    CHECK(seen == order);
    CHECK(batches.batches_done() == 3);
    CHECK_FALSE(batches.next(batch));

    datasets::BatchIterator whole(dataset, order, 64);
    CHECK(whole.batch_count() == 1);
    REQUIRE(whole.next(batch));
    CHECK(batch.count() == 10);
    CHECK(batch.indices == order);
    CHECK_FALSE(whole.next(batch));
}

TEST_CASE("Batches without images carry the same indices and labels", "[feeding]") {
    const Dataset dataset = make_dataset(10, {1, 3, 2}, 11);
    const std::vector<std::size_t> order = datasets::epoch_order(zero_to(10), 9, 0);
    datasets::BatchIterator with_images(dataset, order, 4), without(dataset, order, 4);
    without.leave_images_out();
    datasets::Batch full, bare;
    while (with_images.next(full)) {
        REQUIRE(without.next(bare));
        CHECK(bare.images.empty());
        CHECK(bare.indices == full.indices);
        CHECK(bare.first == full.first);
        CHECK(bare.labels == full.labels);
    }
    CHECK_FALSE(without.next(bare));

    datasets::Augmentation flip;
    flip.horizontal_flip = true;
    datasets::BatchIterator augmented(dataset, order, 4, flip, 3);
    CHECK_THROWS_WITH(augmented.leave_images_out(), Catch::Contains("cannot be augmented"));
}

TEST_CASE("A bad batch size or an index past the dataset is refused at construction", "[feeding]") {
    const Dataset dataset = make_dataset(5, {1, 2, 2}, 12);
    CHECK_THROWS_AS(datasets::BatchIterator(dataset, zero_to(5), 0), std::invalid_argument);
    CHECK_THROWS_AS(datasets::BatchIterator(dataset, {0, 1, 5}, 2), std::out_of_range);
    CHECK_THROWS_WITH(datasets::BatchIterator(dataset, {0, 1, 5}, 2),
                      Catch::Contains("sample 5") && Catch::Contains("'feeding test'"));
}

TEST_CASE("Rebuilt batches are augmented identically", "[feeding]") {
    const Dataset dataset = make_dataset(10, {3, 8, 8}, 13);
    Augmentation augmentation;
    augmentation.random_crop = true;
    augmentation.horizontal_flip = true;
    const std::vector<std::size_t> order = datasets::epoch_order(zero_to(10), 1, 0);
    datasets::BatchIterator first(dataset, order, 4, augmentation, 77), second(dataset, order, 4, augmentation, 77);
    datasets::BatchIterator plain(dataset, order, 4);
    datasets::Batch a, b, unaugmented;
    bool any_changed = false;
    while (first.next(a)) {
        REQUIRE(second.next(b));
        REQUIRE(plain.next(unaugmented));
        CHECK(a.images == b.images);
        CHECK(a.indices == b.indices);
        any_changed = any_changed || a.images != unaugmented.images;
    }
    CHECK(any_changed);  // the augmentation did something
}

TEST_CASE("A crop with no padding leaves the image as it is", "[feeding]") {
    const Dataset dataset = make_dataset(1, {3, 8, 8}, 14);
    Augmentation augmentation;
    augmentation.random_crop = true;
    augmentation.crop_padding = 0;
    std::mt19937_64 generator(1);
    for (int i = 0; i < 20; ++i) {
        std::vector<float> image = to_vector(dataset.image(0));
        datasets::augment_image(image, dataset.shape, augmentation, generator);
        CHECK(image == to_vector(dataset.image(0)));
    }
}

TEST_CASE("A random crop shifts every channel by the same offset within the padding", "[feeding]") {
    const ImageShape shape{3, 8, 8};
    const Dataset dataset = make_dataset(1, shape, 15);
    const std::vector<float> input = to_vector(dataset.image(0));
    Augmentation augmentation;
    augmentation.random_crop = true;
    augmentation.crop_padding = 4;
    std::mt19937_64 generator(2);
    std::set<std::pair<int, int>> offsets_seen;
    const std::size_t plane = shape.plane();
    for (int draw = 0; draw < 100; ++draw) {
        std::vector<float> output = input;
        datasets::augment_image(output, shape, augmentation, generator);
        // Search every offset, a little beyond the padding too: exactly one must match, the same for each channel.
        std::vector<std::pair<int, int>> matches;
        for (int sy = -6; sy <= 6; ++sy) {
            for (int sx = -6; sx <= 6; ++sx) {
                bool all_channels = true;
                for (std::size_t c = 0; c < 3; ++c)
                    all_channels = all_channels &&
                                   is_shift(std::span<const float>(input).subspan(c * plane, plane),
                                            std::span<const float>(output).subspan(c * plane, plane), 8, 8, sy, sx);
                if (all_channels) matches.emplace_back(sy, sx);
            }
        }
        REQUIRE(matches.size() == 1);
        CHECK(std::abs(matches[0].first) <= 4);
        CHECK(std::abs(matches[0].second) <= 4);
        offsets_seen.insert(matches[0]);
    }
    CHECK(offsets_seen.size() > 20);  // 81 possible offsets, 100 draws
    const bool edge_reached = std::any_of(offsets_seen.begin(), offsets_seen.end(), [](const auto& offset) {
        return std::abs(offset.first) == 4 || std::abs(offset.second) == 4;
    });
    CHECK(edge_reached);  // the whole padding is used, not only the middle
}

TEST_CASE("A horizontal flip mirrors about half of the images", "[feeding]") {
    const ImageShape shape{3, 5, 6};
    const Dataset dataset = make_dataset(1, shape, 16);
    const std::vector<float> input = to_vector(dataset.image(0));
    const std::vector<float> mirror = mirrored(input, shape);
    REQUIRE(mirror != input);
    Augmentation augmentation;
    augmentation.horizontal_flip = true;
    std::mt19937_64 generator(3);
    int flipped = 0;
    for (int draw = 0; draw < 200; ++draw) {
        std::vector<float> output = input;
        datasets::augment_image(output, shape, augmentation, generator);
        REQUIRE((output == input || output == mirror));
        if (output == mirror) ++flipped;
    }
    CHECK(flipped >= 80);
    CHECK(flipped <= 120);
}

TEST_CASE("Crop then flip: draws dy, dx, then the flip", "[feeding]") {
    const ImageShape shape{2, 6, 7};
    const Dataset dataset = make_dataset(1, shape, 17);
    const std::vector<float> input = to_vector(dataset.image(0));
    Augmentation augmentation;
    augmentation.random_crop = true;
    augmentation.crop_padding = 2;
    augmentation.horizontal_flip = true;
    std::mt19937_64 generator(4);
    const std::size_t plane = shape.plane();
    for (int draw = 0; draw < 30; ++draw) {
        std::mt19937_64 replay = generator;
        const int sy = static_cast<int>(datasets::draw_below(replay, 5)) - 2;
        const int sx = static_cast<int>(datasets::draw_below(replay, 5)) - 2;
        const bool flip = datasets::draw_below(replay, 2) == 1;
        std::vector<float> output = input;
        datasets::augment_image(output, shape, augmentation, generator);
        // Undo the flip, then the rest must be the shift: a flip before the crop would mirror the offset.
        const std::vector<float> unflipped = flip ? mirrored(output, shape) : output;
        for (std::size_t c = 0; c < 2; ++c)
            CHECK(is_shift(std::span<const float>(input).subspan(c * plane, plane),
                           std::span<const float>(unflipped).subspan(c * plane, plane), 6, 7, sy, sx));
    }
    std::vector<float> wrong_size(5, 1.0f);
    CHECK_THROWS_AS(datasets::augment_image(wrong_size, shape, augmentation, generator), std::invalid_argument);
}

TEST_CASE("Normalisation statistics match a direct computation and standardise every channel", "[feeding]") {
    Dataset dataset = make_dataset(20, {3, 5, 4}, 18);
    const std::size_t plane = 20;
    // Reference: plain double loops.
    double mean[3] = {0, 0, 0}, variance[3] = {0, 0, 0};
    for (std::size_t s = 0; s < 20; ++s)
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t p = 0; p < plane; ++p) mean[c] += dataset.images[(s * 3 + c) * plane + p];
    for (double& m : mean) m /= 400.0;
    for (std::size_t s = 0; s < 20; ++s)
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t p = 0; p < plane; ++p) {
                const double d = dataset.images[(s * 3 + c) * plane + p] - mean[c];
                variance[c] += d * d;
            }
    const datasets::Normalization normalization = datasets::compute_normalization(dataset);
    REQUIRE(normalization.mean.size() == 3);
    REQUIRE(normalization.stddev.size() == 3);
    for (std::size_t c = 0; c < 3; ++c) {
        CHECK(normalization.mean[c] == Approx(mean[c]).epsilon(1e-6));
        CHECK(normalization.stddev[c] == Approx(std::sqrt(variance[c] / 400.0)).epsilon(1e-6));
    }

    const Dataset original = dataset;
    datasets::normalize(dataset, normalization);
    CHECK(dataset.mean == normalization.mean);
    CHECK(dataset.stddev == normalization.stddev);
    for (std::size_t c = 0; c < 3; ++c) {
        double sum = 0, squares = 0;
        for (std::size_t s = 0; s < 20; ++s)
            for (std::size_t p = 0; p < plane; ++p) {
                const double value = dataset.images[(s * 3 + c) * plane + p];
                sum += value;
                squares += value * value;
            }
        CHECK(std::abs(sum / 400.0) < 1e-5);
        CHECK(std::abs(std::sqrt(squares / 400.0 - (sum / 400.0) * (sum / 400.0)) - 1.0) < 1e-5);
    }
    // Display still shows the original 8-bit pixels.
    for (std::size_t s = 0; s < 20; ++s) CHECK(dataset.pixels(s) == original.pixels(s));
}

TEST_CASE("A constant channel gets standard deviation 1", "[feeding]") {
    Dataset dataset = make_dataset(6, {2, 3, 3}, 19);
    for (std::size_t s = 0; s < 6; ++s)
        for (std::size_t p = 0; p < 9; ++p) dataset.images[(s * 2 + 1) * 9 + p] = 0.3f;
    const datasets::Normalization normalization = datasets::compute_normalization(dataset);
    CHECK(normalization.stddev[1] == 1.0f);
    CHECK(normalization.mean[1] == Approx(0.3f));
    CHECK(normalization.stddev[0] != 1.0f);
    datasets::normalize(dataset, normalization);
    for (std::size_t s = 0; s < 6; ++s)
        for (std::size_t p = 0; p < 9; ++p) CHECK(std::abs(dataset.images[(s * 2 + 1) * 9 + p]) < 1e-6);
}

TEST_CASE("Normalising twice or with the wrong channel count is refused", "[feeding]") {
    Dataset dataset = make_dataset(4, {3, 2, 2}, 20);
    const datasets::Normalization normalization = datasets::compute_normalization(dataset);
    datasets::Normalization one_channel;
    one_channel.mean = {0.5f};
    one_channel.stddev = {0.25f};
    CHECK_THROWS_AS(datasets::normalize(dataset, one_channel), std::logic_error);
    CHECK_THROWS_WITH(datasets::normalize(dataset, one_channel), Catch::Contains("'feeding test' has 3 channels"));
    CHECK(dataset.mean.empty());  // the refused call changed nothing

    datasets::normalize(dataset, normalization);
    const std::vector<float> once = dataset.images;
    CHECK_THROWS_AS(datasets::normalize(dataset, normalization), std::logic_error);
    CHECK_THROWS_WITH(datasets::normalize(dataset, normalization), "'feeding test' is already normalised");
    CHECK(dataset.images == once);
}
