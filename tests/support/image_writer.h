#pragma once
// Writes small PNG and JPEG files for the image-folder tests (encoded by image_encoder.h).
#include <cstdint>
#include <filesystem>
#include <vector>

namespace bps::test {

// `pixels` are height x width x channels, interleaved (channels 1 to 4). A wrong pixel count or
// a failed write fails the test (by exception or REQUIRE).
void write_test_png(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels);
void write_test_jpg(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels, int quality = 95);

}  // namespace bps::test
