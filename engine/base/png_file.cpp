// PNG encoding of io::Picture (declared in engine/base/picture.h).
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/base/atomic_file.h"
#include "engine/base/picture.h"

// stb_image_write compiled here, static, so it never clashes with another copy (libstb, the
// tests' encoder). Debian keeps the header in include/stb; vcpkg and Homebrew beside the others.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#elif defined(_MSC_VER)
#pragma warning(push, 0)
#endif
#if __has_include(<stb/stb_image_write.h>)
#include <stb/stb_image_write.h>
#else
#include <stb_image_write.h>
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#elif defined(_MSC_VER)
#pragma warning(pop)
#endif

namespace bps::io {

namespace {

void append_to(void* context, void* data, int size) {
    auto* bytes = static_cast<std::vector<std::uint8_t>*>(context);
    const auto* begin = static_cast<const std::uint8_t*>(data);
    bytes->insert(bytes->end(), begin, begin + size);
}

void check_picture(const Picture& picture) {
    const auto side_ok = [](int side) { return side > 0 && side <= kLargestPictureSide; };
    if (!side_ok(picture.width) || !side_ok(picture.height) || picture.channels < 1 || picture.channels > 4)
        throw std::invalid_argument("png_bytes: a picture of " + std::to_string(picture.width) + "x" +
                                    std::to_string(picture.height) + " pixels and " + std::to_string(picture.channels) +
                                    " channels cannot be a PNG (sides 1 to " + std::to_string(kLargestPictureSide) +
                                    ", channels 1 to 4)");
    const std::size_t expected = static_cast<std::size_t>(picture.width) * static_cast<std::size_t>(picture.height) *
                                 static_cast<std::size_t>(picture.channels);
    if (picture.pixels.size() != expected)
        throw std::invalid_argument("png_bytes: " + std::to_string(picture.pixels.size()) + " bytes for " +
                                    std::to_string(picture.width) + "x" + std::to_string(picture.height) +
                                    " pixels of " + std::to_string(picture.channels) + " channels; " +
                                    std::to_string(expected) + " expected");
}

}  // namespace

std::vector<std::uint8_t> png_bytes(const Picture& picture) {
    check_picture(picture);
    std::vector<std::uint8_t> bytes;
    // The row stride fits an int: kLargestPictureSide x 4 channels.
    if (stbi_write_png_to_func(append_to, &bytes, picture.width, picture.height, picture.channels,
                               picture.pixels.data(), picture.width * picture.channels) == 0)
        throw std::runtime_error("png_bytes: stb_image_write could not encode the picture (out of memory)");
    return bytes;
}

void write_png(const std::filesystem::path& file, const Picture& picture) {
    const std::vector<std::uint8_t> bytes = png_bytes(picture);
    try {
        save_atomically(file, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    } catch (const SaveProblem& problem) {
        throw std::runtime_error(file.string() + ": cannot be saved: " + problem.what());
    }
}

}  // namespace bps::io
