#include "tests/support/image_writer.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/image_encoder.h"

namespace bps::test {

namespace {

// Through std::ofstream, so that non-ASCII paths work on Windows too.
void write_bytes(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
    std::ofstream stream(file, std::ios::binary);
    stream.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    REQUIRE(stream.good());
}

}  // namespace

void write_test_png(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels) {
    write_bytes(file, encode_png(width, height, channels, pixels));
}

void write_test_jpg(const std::filesystem::path& file, int width, int height, int channels,
                    const std::vector<std::uint8_t>& pixels, int quality) {
    write_bytes(file, encode_jpg(width, height, channels, pixels, quality));
}

}  // namespace bps::test
