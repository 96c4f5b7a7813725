#pragma once
// PNG and JPEG bytes from pixels, with stb_image_write compiled privately into the tests (the
// datasets library does not expose stb). No test framework here: the seed-corpus writer of
// tests/fuzz uses it too; tests use image_writer.h, which fails the test on error.
#include <cstdint>
#include <vector>

namespace bps::test {

// `pixels` are height x width x channels, interleaved (channels 1 to 4). Throws
// std::invalid_argument when their count does not fit, std::runtime_error when stb fails.
std::vector<std::uint8_t> encode_png(int width, int height, int channels, const std::vector<std::uint8_t>& pixels);
std::vector<std::uint8_t> encode_jpg(int width, int height, int channels, const std::vector<std::uint8_t>& pixels,
                                     int quality = 95);

}  // namespace bps::test
