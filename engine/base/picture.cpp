#include "engine/base/picture.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace bps::io {

namespace {

// Rec. 601 luma, the weights image viewers use to show colour as grey.
constexpr double kLumaRed = 0.299, kLumaGreen = 0.587, kLumaBlue = 0.114;

std::string size_text(int height, int width) {
    return std::to_string(height) + "x" + std::to_string(width);
}

std::string non_finite_text(float value) {
    if (std::isnan(value)) return "NaN";
    return value > 0 ? "+inf" : "-inf";
}

void check_positive(const char* what, const char* name, int value) {
    if (value <= 0)
        throw std::invalid_argument(std::string(what) + ": " + name + " must be positive, not " +
                                    std::to_string(value));
}

// True when `count` is exactly planes * height * width, without overflowing on any platform.
bool holds(std::size_t count, int planes, int height, int width) {
    const auto plane = static_cast<unsigned long long>(height) * static_cast<unsigned long long>(width);
    return count % plane == 0 && count / plane == static_cast<unsigned long long>(planes);
}

// One side of a picture of `cells` cells of `side` values each, `scale` pixels per value and a
// 1-pixel gap between cells; refused beyond kLargestPictureSide (before anything is allocated).
int picture_side(const char* what, const char* name, int cells, int side, int scale) {
    const long long cell = static_cast<long long>(side) * scale;  // both below 2^31: fits
    const long long total = cell > kLargestPictureSide ? cell : cells * cell + (cells - 1);
    if (total > kLargestPictureSide)
        throw std::invalid_argument(
            std::string(what) + ": the picture would be " +
            (cell > kLargestPictureSide ? "more than " + std::to_string(kLargestPictureSide) : std::to_string(total)) +
            " pixels " + name + " at scale " + std::to_string(scale) + "; at most " +
            std::to_string(kLargestPictureSide) + " can be drawn");
    return static_cast<int>(total);
}

std::size_t index(int a, int b) {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}

std::uint8_t to_byte(double value) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0, 255.0)));
}

// Sets the scale x scale block of pixels whose top-left corner is (top, left) in an RGB picture.
void paint_block(Picture& picture, int top, int left, int scale, const std::array<std::uint8_t, 3>& rgb) {
    for (int y = top; y < top + scale; ++y) {
        std::uint8_t* pixel = picture.pixels.data() + (index(y, picture.width) + static_cast<std::size_t>(left)) * 3;
        for (int x = 0; x < scale; ++x, pixel += 3) std::copy(rgb.begin(), rgb.end(), pixel);
    }
}

}  // namespace

Picture activation_grid(int channels, int height, int width, std::span<const float> values, int scale) {
    constexpr const char* what = "activation_grid";
    check_positive(what, "channels", channels);
    check_positive(what, "height", height);
    check_positive(what, "width", width);
    check_positive(what, "scale", scale);
    if (!holds(values.size(), channels, height, width))
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(values.size()) + " values for " +
                                    std::to_string(channels) + " channels of " + size_text(height, width) +
                                    " (height x width); " + std::to_string(channels) + " x " + std::to_string(height) +
                                    " x " + std::to_string(width) + " expected");

    // The smallest columns with columns^2 >= channels, in integers (no floating sqrt to round).
    int columns = 1;
    while (static_cast<long long>(columns) * columns < channels) ++columns;
    const int rows = (channels + columns - 1) / columns;

    Picture picture;
    picture.channels = 3;
    picture.width = picture_side(what, "wide", columns, width, scale);
    picture.height = picture_side(what, "high", rows, height, scale);
    picture.pixels.resize(index(picture.width, picture.height) * 3);
    for (std::size_t i = 0; i < picture.pixels.size(); i += 3)
        std::copy(kSeparatorColour.begin(), kSeparatorColour.end(),
                  picture.pixels.begin() + static_cast<std::ptrdiff_t>(i));

    const std::size_t plane = index(height, width);
    for (int channel = 0; channel < channels; ++channel) {
        const std::span<const float> tile = values.subspan(static_cast<std::size_t>(channel) * plane, plane);
        for (std::size_t i = 0; i < plane; ++i) {
            if (!std::isfinite(tile[i]))
                throw std::invalid_argument(std::string(what) + ": channel " + std::to_string(channel) +
                                            " has a non-finite value (" + non_finite_text(tile[i]) + ") at row " +
                                            std::to_string(i / static_cast<std::size_t>(width)) + ", column " +
                                            std::to_string(i % static_cast<std::size_t>(width)));
        }
        const auto [low, high] = std::minmax_element(tile.begin(), tile.end());
        // In double: the range of two finite floats can exceed float's largest value.
        const double min = *low, range = static_cast<double>(*high) - static_cast<double>(*low);
        const int tile_top = (channel / columns) * (height * scale + 1);
        const int tile_left = (channel % columns) * (width * scale + 1);
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                const float value = tile[index(y, width) + static_cast<std::size_t>(x)];
                const std::uint8_t grey = range > 0 ? to_byte((value - min) / range * 255.0) : std::uint8_t{128};
                paint_block(picture, tile_top + y * scale, tile_left + x * scale, scale, {grey, grey, grey});
            }
        }
    }
    return picture;
}

Picture heatmap_overlay(int channels, int height, int width, std::span<const float> image, std::span<const float> heat,
                        int scale) {
    constexpr const char* what = "heatmap_overlay";
    if (channels != 1 && channels != 3)
        throw std::invalid_argument(std::string(what) + ": the image must have 1 or 3 channels, not " +
                                    std::to_string(channels));
    check_positive(what, "height", height);
    check_positive(what, "width", width);
    check_positive(what, "scale", scale);
    if (!holds(image.size(), channels, height, width))
        throw std::invalid_argument(std::string(what) + ": the image has " + std::to_string(image.size()) +
                                    " values; " + std::to_string(channels) + " x " + std::to_string(height) + " x " +
                                    std::to_string(width) + " expected");
    if (!holds(heat.size(), 1, height, width))
        throw std::invalid_argument(std::string(what) + ": the heat map has " + std::to_string(heat.size()) +
                                    " values; " + std::to_string(height) + " x " + std::to_string(width) +
                                    " expected, one per image pixel");

    const std::size_t plane = index(height, width);
    const auto where = [width](std::size_t i) {
        return " at row " + std::to_string(i / static_cast<std::size_t>(width)) + ", column " +
               std::to_string(i % static_cast<std::size_t>(width));
    };
    for (std::size_t i = 0; i < image.size(); ++i) {
        if (!std::isfinite(image[i]))
            throw std::invalid_argument(std::string(what) + ": image channel " + std::to_string(i / plane) +
                                        " has a non-finite value (" + non_finite_text(image[i]) + ")" +
                                        where(i % plane));
    }
    float largest = 0.0f;
    for (std::size_t i = 0; i < heat.size(); ++i) {
        if (!std::isfinite(heat[i]))
            throw std::invalid_argument(std::string(what) + ": the heat map has a non-finite value (" +
                                        non_finite_text(heat[i]) + ")" + where(i));
        largest = std::max(largest, std::abs(heat[i]));
    }

    Picture picture;
    picture.channels = 3;
    picture.width = picture_side(what, "wide", 1, width, scale);
    picture.height = picture_side(what, "high", 1, height, scale);
    picture.pixels.resize(index(picture.width, picture.height) * 3);

    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const std::size_t p = index(y, width) + static_cast<std::size_t>(x);
            const auto at = [&](int c) {
                return std::clamp(static_cast<double>(image[static_cast<std::size_t>(c) * plane + p]), 0.0, 1.0);
            };
            const double grey =
                255.0 * (channels == 1 ? at(0) : kLumaRed * at(0) + kLumaGreen * at(1) + kLumaBlue * at(2));
            // The hottest pixel is half grey, half colour; cooler ones fade towards the grey image.
            const double weight = largest > 0 ? 0.5 * std::abs(static_cast<double>(heat[p])) / largest : 0.0;
            const double red = heat[p] > 0 ? 255.0 : 0.0, blue = heat[p] < 0 ? 255.0 : 0.0;
            const auto blend = [&](double colour) { return to_byte(grey * (1.0 - weight) + colour * weight); };
            paint_block(picture, y * scale, x * scale, scale, {blend(red), blend(0.0), blend(blue)});
        }
    }
    return picture;
}

int scale_for(int side, int at_least) {
    check_positive("scale_for", "side", side);
    if (at_least <= side) return 1;
    return at_least / side + (at_least % side != 0 ? 1 : 0);
}

}  // namespace bps::io
