#include "tests/support/image_encoder.h"

// Compiled here, static, so the tests need neither libstb's write symbols nor clash with them.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <stdexcept>
#include <string>

namespace bps::test {

namespace {

void append_to(void* context, void* data, int size) {
    auto* bytes = static_cast<std::vector<std::uint8_t>*>(context);
    const auto* begin = static_cast<const std::uint8_t*>(data);
    bytes->insert(bytes->end(), begin, begin + size);
}

void check_size(int width, int height, int channels, const std::vector<std::uint8_t>& pixels) {
    const std::size_t expected =
        static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * static_cast<std::size_t>(channels);
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || pixels.size() != expected)
        throw std::invalid_argument("encode: " + std::to_string(pixels.size()) + " values for " +
                                    std::to_string(width) + "x" + std::to_string(height) + "x" +
                                    std::to_string(channels));
}

}  // namespace

std::vector<std::uint8_t> encode_png(int width, int height, int channels, const std::vector<std::uint8_t>& pixels) {
    check_size(width, height, channels, pixels);
    std::vector<std::uint8_t> bytes;
    if (stbi_write_png_to_func(append_to, &bytes, width, height, channels, pixels.data(), width * channels) == 0)
        throw std::runtime_error("stb_image_write could not encode a PNG");
    return bytes;
}

std::vector<std::uint8_t> encode_jpg(int width, int height, int channels, const std::vector<std::uint8_t>& pixels,
                                     int quality) {
    check_size(width, height, channels, pixels);
    std::vector<std::uint8_t> bytes;
    if (stbi_write_jpg_to_func(append_to, &bytes, width, height, channels, pixels.data(), quality) == 0)
        throw std::runtime_error("stb_image_write could not encode a JPEG");
    return bytes;
}

}  // namespace bps::test
