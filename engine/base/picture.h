#pragma once
// Pictures of what a network computes, for `backprop inspect`: a layer's output as a grid of
// channel tiles, and a heat map (a saliency or class-activation map) drawn over the input image,
// saved as PNG. Pure C++ with no device and no Qt, so the CLI, the studio and the tests share it.
// Values arrive as the engine holds them (CHW floats); what a picture shows is 8-bit.
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace bps::io {

// An 8-bit picture, rows top to bottom, channels interleaved (1 = grey, 3 = RGB).
struct Picture {
    int width = 0, height = 0, channels = 3;
    std::vector<std::uint8_t> pixels;
};

// The dark blue-grey (RGB) between the tiles of an activation grid and in its unused cells.
inline constexpr std::array<std::uint8_t, 3> kSeparatorColour = {40, 44, 56};

// The largest side a picture may have: the same limit the image reader decodes (datasets/), so
// every picture written here can be read back.
inline constexpr int kLargestPictureSide = 16384;

// Every channel of one layer's output as a tile in a near-square grid (columns =
// ceil(sqrt(channels)), rows as many as needed, filled row by row), each tile scaled to its own
// range (its min black, its max white; a constant tile mid grey 128) and enlarged by nearest
// neighbour to `scale` pixels per value. Tiles are separated by a 1-pixel gap (no outer border) in
// kSeparatorColour, which also fills the cells after the last channel. The picture is RGB.
// values: channels x height x width floats (CHW).
// std::invalid_argument for sizes that do not match or are not positive, a picture larger than
// kLargestPictureSide, or a non-finite value (naming its channel).
Picture activation_grid(int channels, int height, int width, std::span<const float> values, int scale);

// A heat map drawn over an image: the image (CHW floats in [0,1], 1 or 3 channels; RGB shown as
// its luma, values outside [0,1] clamped) in grey, each pixel blended with the colour of its heat.
// Diverging: heat is scaled by the largest |heat|; positive heat towards red, negative towards
// blue, with weight |heat|/max, so the hottest pixel is 50/50 grey and colour and zero heat shows
// the grey image unchanged (all-zero heat gives the grey image). Enlarged by nearest neighbour
// `scale`. heat: height x width. The picture is RGB.
// std::invalid_argument as activation_grid's, for the image or the heat.
Picture heatmap_overlay(int channels, int height, int width, std::span<const float> image, std::span<const float> heat,
                        int scale);

// The smallest enlargement (1 or more) that draws a side of `side` pixels at least `at_least`
// pixels long. std::invalid_argument when `side` is not positive.
int scale_for(int side, int at_least);

// Writes the picture as a PNG atomically (an earlier file is replaced whole or not at all);
// std::runtime_error naming the file ("FILE: cannot be saved: ...") when it cannot be saved,
// std::invalid_argument when the picture is malformed (as png_bytes).
void write_png(const std::filesystem::path& file, const Picture& picture);

// The PNG bytes alone. std::invalid_argument when the sides are not positive or larger than
// kLargestPictureSide, channels are not 1 to 4, or the pixel count does not match.
std::vector<std::uint8_t> png_bytes(const Picture& picture);

}  // namespace bps::io
