#pragma once
// The shape of an activation or parameter tensor: always four NCHW dimensions. A dense layer's
// activations are N x features x 1 x 1, so Flatten changes the shape and never the memory.
#include <cstddef>
#include <string>

namespace bps {

struct Shape {
    int n = 1;  // batch
    int c = 1;  // channels (features for dense activations)
    int h = 1;
    int w = 1;

    std::size_t count() const noexcept {
        return static_cast<std::size_t>(n) * static_cast<std::size_t>(c) * static_cast<std::size_t>(h) *
               static_cast<std::size_t>(w);
    }
    std::size_t per_sample() const noexcept {
        return static_cast<std::size_t>(c) * static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
    }
    std::size_t plane() const noexcept { return static_cast<std::size_t>(h) * static_cast<std::size_t>(w); }
    bool operator==(const Shape&) const = default;

    // "64x1x28x28": what error messages and summaries show.
    std::string to_string() const;
    // One sample as Keras prints it, without the batch: "(8, 14, 14)" (channels, height, width),
    // or "(128)" for flat features.
    std::string sample_text() const;
};

// Throws std::invalid_argument naming `what` when any dimension is below 1.
void require_valid(const Shape& shape, const std::string& what);

}  // namespace bps
