#include "tests/support/image_writer.h"

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

#include <catch2/catch.hpp>
#include <fstream>

namespace bps::test {

namespace {

// Writes through std::ofstream so that non-ASCII paths work on Windows too.
void append_to_stream(void* context, void* data, int size) {
    static_cast<std::ofstream*>(context)->write(static_cast<const char*>(data), size);
}

void check_size(int width, int height, int channels, const std::vector<std::uint8_t>& pixels) {
    REQUIRE(pixels.size() ==
            static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * static_cast<std::size_t>(channels));
}

}  // namespace

void write_test_png(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels) {
    check_size(width, height, channels, pixels);
    std::ofstream stream(file, std::ios::binary);
    REQUIRE(stbi_write_png_to_func(append_to_stream, &stream, width, height, channels, pixels.data(),
                                   width * channels) != 0);
    REQUIRE(stream.good());
}

void write_test_jpg(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels, int quality) {
    check_size(width, height, channels, pixels);
    std::ofstream stream(file, std::ios::binary);
    REQUIRE(stbi_write_jpg_to_func(append_to_stream, &stream, width, height, channels, pixels.data(), quality) != 0);
    REQUIRE(stream.good());
}

}  // namespace bps::test
