// Random crop and horizontal flip of one CHW image. The random choices are made once per
// image, so every channel moves the same way.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "datasets/feeding.h"

namespace bps::datasets {

namespace {

// output(y, x) = input(y + dy - padding, x + dx - padding), zero where that falls outside:
// the same as padding with zeros and cropping the original size at (dy, dx).
void shift_with_zeros(std::span<float> image, const ImageShape& shape, int dy, int dx, int padding) {
    const int height = shape.height, width = shape.width;
    const std::size_t plane = shape.plane();
    std::vector<float> source(plane);
    for (int c = 0; c < shape.channels; ++c) {
        const std::span<float> channel = image.subspan(static_cast<std::size_t>(c) * plane, plane);
        std::copy(channel.begin(), channel.end(), source.begin());
        for (int y = 0; y < height; ++y) {
            const int from_y = y + dy - padding;
            for (int x = 0; x < width; ++x) {
                const int from_x = x + dx - padding;
                const bool inside = from_y >= 0 && from_y < height && from_x >= 0 && from_x < width;
                channel[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)] =
                    inside ? source[static_cast<std::size_t>(from_y) * static_cast<std::size_t>(width) +
                                    static_cast<std::size_t>(from_x)]
                           : 0.0f;
            }
        }
    }
}

void mirror_columns(std::span<float> image, const ImageShape& shape) {
    const auto width = static_cast<std::size_t>(shape.width);
    const std::size_t rows = static_cast<std::size_t>(shape.channels) * static_cast<std::size_t>(shape.height);
    for (std::size_t row = 0; row < rows; ++row) {
        const auto begin = image.begin() + static_cast<std::ptrdiff_t>(row * width);
        std::reverse(begin, begin + static_cast<std::ptrdiff_t>(width));
    }
}

}  // namespace

void augment_image(std::span<float> image, const ImageShape& shape, const Augmentation& augmentation,
                   std::mt19937_64& generator) {
    if (image.size() != shape.per_sample()) {
        std::string message = "an image of ";
        message += std::to_string(image.size());
        message += " values does not have the shape ";
        message += shape.to_string();
        throw std::invalid_argument(message);
    }
    if (augmentation.random_crop) {
        if (augmentation.crop_padding < 0) {
            std::string message = "the crop padding must not be negative, but it is ";
            message += std::to_string(augmentation.crop_padding);
            throw std::invalid_argument(message);
        }
        const int padding = augmentation.crop_padding;
        const auto offsets = static_cast<std::uint64_t>(2 * padding + 1);
        const auto dy = static_cast<int>(draw_below(generator, offsets));
        const auto dx = static_cast<int>(draw_below(generator, offsets));
        if (dy != padding || dx != padding) shift_with_zeros(image, shape, dy, dx, padding);
    }
    if (augmentation.horizontal_flip && draw_below(generator, 2) == 1) mirror_columns(image, shape);
}

}  // namespace bps::datasets
