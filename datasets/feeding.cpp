// Splits, epoch orders and batches. Every random choice goes through draw_below on mt19937_64,
// whose output sequence the C++ standard fixes, so a seed means the same thing everywhere.
#include "datasets/feeding.h"

#include <algorithm>
#include <cmath>
#include <locale>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

namespace bps::datasets {

namespace {

// SplitMix64's finaliser: spreads a combined seed over all 64 bits, so nearby seeds or
// epochs give unrelated generators. Fixed here on purpose: changing it changes every
// replayed order.
std::uint64_t mix(std::uint64_t value) {
    value += 0x9E3779B97F4A7C15ull;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
    return value ^ (value >> 31);
}

// One generator per (seed, stream): stream is the epoch for orders, the batch position for
// augmentation. The golden-ratio multiple keeps streams of one seed far apart before mixing.
std::mt19937_64 generator_for(std::uint64_t seed, std::uint64_t stream) {
    return std::mt19937_64(mix(seed ^ (stream * 0x9E3779B97F4A7C15ull)));
}

std::string format_number(double value) {
    std::ostringstream text;
    text.imbue(std::locale::classic());  // "1.5", never "1,5"
    text << value;
    return text.str();
}

}  // namespace

std::uint64_t draw_below(std::mt19937_64& generator, std::uint64_t bound) {
    if (bound == 0) throw std::invalid_argument("cannot draw a number below 0: the bound must be at least 1");
    // Outputs below `threshold` would make the low residues more likely; (2^64 - bound) % bound
    // is how many there are, computed in 64 bits as (-bound) % bound. Fewer than half of all
    // outputs are rejected, so the loop ends quickly.
    const std::uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        const std::uint64_t value = generator();
        if (value >= threshold) return value % bound;
    }
}

void shuffle_indices(std::vector<std::size_t>& indices, std::mt19937_64& generator) {
    for (std::size_t i = indices.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>(draw_below(generator, i));
        std::swap(indices[i - 1], indices[j]);
    }
}

SplitIndices split_train_validation(std::size_t count, double validation_fraction, std::uint64_t seed) {
    if (!(validation_fraction >= 0.0 && validation_fraction < 1.0)) {
        std::string message = "validation fraction ";
        message += format_number(validation_fraction);
        message += " is outside [0, 1)";
        throw std::invalid_argument(message);
    }
    std::vector<std::size_t> shuffled(count);
    std::iota(shuffled.begin(), shuffled.end(), std::size_t{0});
    std::mt19937_64 generator(seed);
    shuffle_indices(shuffled, generator);

    const auto validation_count =
        std::min(count, static_cast<std::size_t>(std::llround(static_cast<double>(count) * validation_fraction)));
    const auto middle = shuffled.begin() + static_cast<std::ptrdiff_t>(validation_count);
    SplitIndices split;
    split.validation.assign(shuffled.begin(), middle);
    split.train.assign(middle, shuffled.end());
    std::sort(split.validation.begin(), split.validation.end());
    std::sort(split.train.begin(), split.train.end());
    return split;
}

std::vector<std::size_t> epoch_order(std::span<const std::size_t> indices, std::uint64_t seed, std::uint64_t epoch,
                                     bool shuffle) {
    std::vector<std::size_t> order(indices.begin(), indices.end());
    if (!shuffle) return order;
    std::mt19937_64 generator = generator_for(seed, epoch);
    shuffle_indices(order, generator);
    return order;
}

BatchIterator::BatchIterator(const Dataset& dataset, std::vector<std::size_t> order, std::size_t batch_size,
                             Augmentation augmentation, std::uint64_t seed)
    : dataset_(dataset), order_(std::move(order)), batch_size_(batch_size), augmentation_(augmentation), seed_(seed) {
    if (batch_size_ == 0) throw std::invalid_argument("the batch size must be at least 1");
    // Checked now so that a bad order fails before training starts, not halfway through an epoch.
    for (std::size_t index : order_) {
        if (index >= dataset_.size()) {
            std::string message = "sample ";
            message += std::to_string(index);
            message += " is past the end of '";
            message += dataset_.name;
            message += "', which has ";
            message += std::to_string(dataset_.size());
            message += " samples";
            throw std::out_of_range(message);
        }
    }
}

std::size_t BatchIterator::batch_count() const {
    return (order_.size() + batch_size_ - 1) / batch_size_;
}

bool BatchIterator::next(Batch& batch) {
    if (next_batch_ >= batch_count()) return false;
    const std::size_t first = next_batch_ * batch_size_;
    const std::size_t count = std::min(batch_size_, order_.size() - first);
    const std::size_t per_sample = dataset_.shape.per_sample();

    batch.first = first;
    batch.indices.assign(order_.begin() + static_cast<std::ptrdiff_t>(first),
                         order_.begin() + static_cast<std::ptrdiff_t>(first + count));
    batch.labels.resize(count);
    if (!images_) {
        batch.images.clear();
        for (std::size_t i = 0; i < count; ++i) batch.labels[i] = dataset_.labels.at(batch.indices[i]);
        ++next_batch_;
        return true;
    }
    batch.images.resize(count * per_sample);
    // One generator per batch position: rebuilding batch k (a resumed epoch) augments it the same way.
    std::mt19937_64 generator = generator_for(seed_, next_batch_);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t index = batch.indices[i];
        batch.labels[i] = dataset_.labels[index];
        const std::span<const float> source = dataset_.image(index);
        const std::span<float> target = std::span<float>(batch.images).subspan(i * per_sample, per_sample);
        std::copy(source.begin(), source.end(), target.begin());
        if (augmentation_.any()) augment_image(target, dataset_.shape, augmentation_, generator);
    }
    ++next_batch_;
    return true;
}

void BatchIterator::leave_images_out() {
    if (augmentation_.any())
        throw std::logic_error("batches without images cannot be augmented: augmentation works on the host's images");
    images_ = false;
}

}  // namespace bps::datasets
