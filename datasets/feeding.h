#pragma once
// Feeding training: validation split, per-epoch shuffling, batches (the last one partial),
// augmentation and normalisation. Everything random is seeded and portable: the same seed
// gives the same order on every compiler and platform (own bounded draws on mt19937_64,
// whose sequence the C++ standard fixes; never std::shuffle or std::*_distribution).
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "datasets/dataset.h"

namespace bps::datasets {

// A uniform integer in [0, bound) from the generator, without modulo bias.
std::uint64_t draw_below(std::mt19937_64& generator, std::uint64_t bound);
// Fisher–Yates with draw_below.
void shuffle_indices(std::vector<std::size_t>& indices, std::mt19937_64& generator);

struct SplitIndices {
    std::vector<std::size_t> train;       // ascending
    std::vector<std::size_t> validation;  // ascending
};

// Splits 0..count-1: round(count * validation_fraction) samples, chosen with `seed`, go to
// validation. fraction in [0, 1); std::invalid_argument otherwise.
SplitIndices split_train_validation(std::size_t count, double validation_fraction, std::uint64_t seed);

// The order of `indices` for epoch `epoch` (0-based): a permutation that depends only on
// (seed, epoch), so an epoch can be replayed. shuffle=false returns `indices` as they are.
std::vector<std::size_t> epoch_order(std::span<const std::size_t> indices, std::uint64_t seed, std::uint64_t epoch,
                                     bool shuffle = true);

struct Augmentation {
    bool random_crop = false;  // pad by `crop_padding` with zeros, crop back at a random offset
    int crop_padding = 4;
    bool horizontal_flip = false;  // mirror left-right with probability 1/2
    bool any() const { return random_crop || horizontal_flip; }
};

// Augments one CHW image in place.
void augment_image(std::span<float> image, const ImageShape& shape, const Augmentation& augmentation,
                   std::mt19937_64& generator);

struct Batch {
    std::vector<float> images;         // count * per_sample, NCHW
    std::vector<std::int32_t> labels;  // count
    std::vector<std::size_t> indices;  // which samples of the dataset, in batch order
    std::size_t first = 0;             // where indices start in the epoch's order
    std::size_t count() const { return labels.size(); }
};

// Walks `order` in batches of `batch_size`; the last batch holds the rest (never empty).
// Augmentation draws from a generator seeded with (seed, batch number),
// so a batch is the same whenever it is rebuilt.
class BatchIterator {
public:
    BatchIterator(const Dataset& dataset, std::vector<std::size_t> order, std::size_t batch_size,
                  Augmentation augmentation = {}, std::uint64_t seed = 0);
    std::size_t batch_count() const;
    std::size_t batches_done() const { return next_batch_; }
    // The epoch's sample numbers in training order: batch k is order()[first, first + count).
    std::span<const std::size_t> order() const { return order_; }
    bool next(Batch& batch);  // false when the epoch is done
    // From now on next() fills the indices and labels only, leaving batch.images empty: for a
    // training set kept on the device, which gathers the images itself. std::logic_error with
    // augmentation, which changes the images on the host.
    void leave_images_out();

private:
    const Dataset& dataset_;
    std::vector<std::size_t> order_;
    std::size_t batch_size_;
    Augmentation augmentation_;
    std::uint64_t seed_;
    std::size_t next_batch_ = 0;
    bool images_ = true;
};

struct Normalization {
    std::vector<float> mean, stddev;  // per channel
};

// Per-channel mean and (population) standard deviation over all of `train`'s images, in double.
// A channel with zero spread gets stddev 1 so that normalising never divides by zero.
Normalization compute_normalization(const Dataset& train);
// (x - mean) / stddev per channel; records them in dataset.mean/stddev. std::logic_error
// if the dataset is already normalised or the channel count differs.
void normalize(Dataset& dataset, const Normalization& normalization);

}  // namespace bps::datasets
