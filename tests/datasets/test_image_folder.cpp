#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <random>

#include "datasets/image_folder.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/files.h"
#include "tests/support/image_writer.h"
#include "tests/support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

using bps::test::random_pixels;

std::size_t pixel_count(int width, int height, int channels) {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * static_cast<std::size_t>(channels);
}

void write_random_png(const fs::path& file, int width, int height, int channels, std::uint32_t seed) {
    test::write_test_png(file, width, height, channels, random_pixels(pixel_count(width, height, channels), seed));
}

using bps::test::write_text;

// The luma stb_image computes when it turns RGB into one channel (stbi__compute_y).
std::uint8_t stb_luma(int r, int g, int b) {
    return static_cast<std::uint8_t>((r * 77 + g * 150 + b * 29) >> 8);
}

datasets::ImageFolderOptions options_for(int height, int width, int channels) {
    datasets::ImageFolderOptions options;
    options.height = height;
    options.width = width;
    options.channels = channels;
    return options;
}

std::vector<float> as_vector(std::span<const float> values) {
    return {values.begin(), values.end()};
}

}  // namespace

TEST_CASE("An RGB PNG is read as CHW planes of value/255 without resizing", "[image_folder]") {
    test::TempDir dir("image-rgb");
    const int width = 5, height = 3;  // not square, so swapped axes would show
    const std::vector<std::uint8_t> source = random_pixels(pixel_count(width, height, 3), 11);
    test::write_test_png(dir.path() / "rgb.png", width, height, 3, source);

    const std::vector<float> image = datasets::read_image_file(dir.path() / "rgb.png", options_for(height, width, 3));
    REQUIRE(image.size() == pixel_count(width, height, 3));
    const std::size_t plane = static_cast<std::size_t>(width * height);
    for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t y = 0; y < static_cast<std::size_t>(height); ++y) {
            for (std::size_t x = 0; x < static_cast<std::size_t>(width); ++x) {
                const std::size_t at = y * static_cast<std::size_t>(width) + x;
                CHECK(image[c * plane + at] == static_cast<float>(source[at * 3 + c]) / 255.0f);
            }
        }
    }
}

TEST_CASE("A grayscale PNG is exact, and is replicated into three equal planes for RGB", "[image_folder]") {
    test::TempDir dir("image-gray");
    const int width = 4, height = 6;
    const std::vector<std::uint8_t> source = random_pixels(pixel_count(width, height, 1), 12);
    test::write_test_png(dir.path() / "gray.png", width, height, 1, source);

    const std::vector<float> gray = datasets::read_image_file(dir.path() / "gray.png", options_for(height, width, 1));
    const std::vector<float> rgb = datasets::read_image_file(dir.path() / "gray.png", options_for(height, width, 3));
    REQUIRE(gray.size() == source.size());
    REQUIRE(rgb.size() == 3 * source.size());
    for (std::size_t p = 0; p < source.size(); ++p) {
        const float expected = static_cast<float>(source[p]) / 255.0f;
        CHECK(gray[p] == expected);
        for (std::size_t c = 0; c < 3; ++c) CHECK(rgb[c * source.size() + p] == expected);
    }
}

TEST_CASE("An RGB PNG read as grayscale gives stb's luma (77 R + 150 G + 29 B) / 256", "[image_folder]") {
    test::TempDir dir("image-luma");
    const int width = 3, height = 2;
    std::vector<std::uint8_t> source = random_pixels(pixel_count(width, height, 3), 13);
    // One pure colour per channel, so a swapped weight shows whatever the random values are.
    const std::array<std::uint8_t, 9> primaries = {255, 1, 1, 1, 255, 1, 1, 1, 255};
    std::copy(primaries.begin(), primaries.end(), source.begin());
    test::write_test_png(dir.path() / "colour.png", width, height, 3, source);

    const std::vector<float> gray = datasets::read_image_file(dir.path() / "colour.png", options_for(height, width, 1));
    REQUIRE(gray.size() == pixel_count(width, height, 1));
    for (std::size_t p = 0; p < gray.size(); ++p) {
        const std::uint8_t luma = stb_luma(source[3 * p], source[3 * p + 1], source[3 * p + 2]);
        CHECK(gray[p] == static_cast<float>(luma) / 255.0f);
    }
    CHECK(gray[0] == static_cast<float>((255 * 77 + 150 + 29) >> 8) / 255.0f);
}

TEST_CASE("Resizing keeps a constant colour and keeps the dark half dark and the bright half bright",
          "[image_folder]") {
    test::TempDir dir("image-resize");
    const int width = 10, height = 6;
    std::vector<std::uint8_t> constant;
    for (int p = 0; p < width * height; ++p) constant.insert(constant.end(), {200, 90, 30});
    test::write_test_png(dir.path() / "constant.png", width, height, 3, constant);
    std::vector<std::uint8_t> halves;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) halves.push_back(x < width / 2 ? 0 : 255);
    }
    test::write_test_png(dir.path() / "halves.png", width, height, 1, halves);

    const std::vector<float> resized = datasets::read_image_file(dir.path() / "constant.png", options_for(4, 4, 3));
    REQUIRE(resized.size() == 3 * 16);
    const std::array<float, 3> colour = {200.0f / 255.0f, 90.0f / 255.0f, 30.0f / 255.0f};
    for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t p = 0; p < 16; ++p) CHECK(std::abs(resized[c * 16 + p] - colour[c]) <= 1.0f / 255.0f);
    }

    const std::vector<float> split = datasets::read_image_file(dir.path() / "halves.png", options_for(4, 4, 1));
    REQUIRE(split.size() == 16);
    for (std::size_t y = 0; y < 4; ++y) {
        INFO("row " << y);
        CHECK(split[y * 4 + 0] < 0.1f);
        CHECK(split[y * 4 + 1] < 0.5f);
        CHECK(split[y * 4 + 2] > 0.5f);
        CHECK(split[y * 4 + 3] > 0.9f);
    }
}

TEST_CASE("A JPEG of a smooth image reads back within 0.1 of its source", "[image_folder]") {
    test::TempDir dir("image-jpeg");
    const int width = 16, height = 16;
    std::vector<std::uint8_t> source;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            source.insert(source.end(), {static_cast<std::uint8_t>(20 + 12 * x), static_cast<std::uint8_t>(30 + 10 * y),
                                         static_cast<std::uint8_t>(120 + 4 * (x + y))});
        }
    }
    test::write_test_jpg(dir.path() / "smooth.JPEG", width, height, 3, source);

    const std::vector<float> image =
        datasets::read_image_file(dir.path() / "smooth.JPEG", options_for(height, width, 3));
    REQUIRE(image.size() == source.size());
    const std::size_t plane = static_cast<std::size_t>(width * height);
    for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t p = 0; p < plane; ++p) {
            CHECK(std::abs(image[c * plane + p] - static_cast<float>(source[p * 3 + c]) / 255.0f) < 0.1f);
        }
    }
}

TEST_CASE("A folder gives classes in name order and files in name order, ignoring other files", "[image_folder]") {
    test::TempDir dir("image-folder");
    const fs::path root = dir.path() / "animals";
    // Created out of order, so only sorting puts them in name order.
    for (const char* name : {"zebra", "ant", "mole"}) fs::create_directories(root / name);
    write_text(root / "readme.txt", "top-level files are not classes");
    write_random_png(root / "zebra" / "only.png", 4, 3, 1, 1);
    write_random_png(root / "ant" / "2.png", 4, 3, 1, 2);
    write_random_png(root / "ant" / "10.PNG", 4, 3, 3, 3);  // RGB, upper-case extension
    write_random_png(root / "ant" / "1.png", 4, 3, 1, 4);
    write_random_png(root / "mole" / "b.jpeg.bak", 4, 3, 1, 5);  // not an image extension
    test::write_test_jpg(root / "mole" / "a.JpG", 4, 3, 1, random_pixels(12, 6));
    write_text(root / "mole" / "notes.txt", "ignored");
    fs::create_directories(root / ".thumbnails");  // a tool's hidden folder, not a class
    write_random_png(root / ".thumbnails" / "zebra.png", 4, 3, 1, 7);

    const datasets::ImageFolderOptions options = options_for(3, 4, 1);
    const datasets::ImageFolderResult result = datasets::read_image_folder(root, options);
    const datasets::Dataset& dataset = result.dataset;
    CHECK(dataset.name == "animals");
    CHECK(dataset.shape == datasets::ImageShape{1, 3, 4});
    CHECK(dataset.class_names == std::vector<std::string>{"ant", "mole", "zebra"});
    CHECK(dataset.labels == std::vector<std::int32_t>{0, 0, 0, 1, 2});
    CHECK(result.skipped.empty());
    REQUIRE(dataset.images.size() == 5 * dataset.shape.per_sample());

    CHECK(datasets::read_image_folder(root / "", options).dataset.name == "animals");  // "animals/" too

    const std::vector<fs::path> in_order = {root / "ant" / "1.png", root / "ant" / "10.PNG", root / "ant" / "2.png",
                                            root / "mole" / "a.JpG", root / "zebra" / "only.png"};
    for (std::size_t i = 0; i < in_order.size(); ++i) {
        INFO(in_order[i].string());
        CHECK(as_vector(dataset.image(i)) == datasets::read_image_file(in_order[i], options));
    }
}

TEST_CASE("Damaged files are skipped with stb's reason while the others load", "[image_folder]") {
    test::TempDir dir("image-damaged");
    const fs::path root = dir.path() / "photos";
    fs::create_directories(root / "cats");
    fs::create_directories(root / "dogs");
    write_random_png(root / "cats" / "good.png", 3, 3, 3, 21);
    write_random_png(root / "dogs" / "good.png", 3, 3, 3, 22);
    const std::string png_signature = "\x89PNG\r\n\x1a\n";
    write_text(root / "cats" / "broken.png", png_signature + "this is not a PNG chunk at all, just garbage");
    write_text(root / "dogs" / "letter.png", "Dear reader, this is text with an image's name.");
    write_text(root / "dogs" / "list.txt", "ignored, not skipped");

    const datasets::ImageFolderResult result = datasets::read_image_folder(root, options_for(3, 3, 3));
    CHECK(result.dataset.size() == 2);
    CHECK(result.dataset.labels == std::vector<std::int32_t>{0, 1});
    REQUIRE(result.skipped.size() == 2);
    CHECK(result.skipped[0].file == root / "cats" / "broken.png");
    CHECK(result.skipped[0].reason == "first not IHDR");  // stb names what is wrong past the signature
    CHECK(result.skipped[1].file == root / "dogs" / "letter.png");
    CHECK(result.skipped[1].reason == "unknown image type");

    REQUIRE_THROWS_WITH(datasets::read_image_file(root / "dogs" / "letter.png", options_for(3, 3, 3)),
                        test::error_text(root / "dogs" / "letter.png", "cannot be decoded: unknown image type"));
}

TEST_CASE("An image larger than 16384 pixels in a side is refused before it is decoded", "[image_folder]") {
    test::TempDir dir("image-huge");
    // Only the header: a real 20000x300 image is never needed, since the size is checked first.
    const std::string header("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x4e\x20\0\0\x01\x2c\x08\0\0\0\0\0\0\0\0", 33);
    const fs::path file = dir.path() / "wide.png";
    write_text(file, header);
    REQUIRE_THROWS_WITH(datasets::read_image_file(file, options_for(28, 28, 1)),
                        test::error_text(file, "is 20000x300 pixels; the largest accepted is 16384"));
}

TEST_CASE("Unusable folders and options are refused with a message naming the folder", "[image_folder]") {
    test::TempDir dir("image-errors");
    const datasets::ImageFolderOptions options;
    const auto refused = [&](const fs::path& folder, const std::string& problem,
                             const datasets::ImageFolderOptions& with = datasets::ImageFolderOptions{}) {
        INFO(problem);
        REQUIRE_THROWS_WITH(datasets::read_image_folder(folder, with), test::error_text(folder, problem));
    };

    refused(dir.path() / "absent", "does not exist");
    write_text(dir.path() / "file.png", "x");
    refused(dir.path() / "file.png", "is not a folder");

    const fs::path flat = dir.path() / "flat";
    fs::create_directories(flat);
    write_random_png(flat / "a.png", 4, 4, 1, 31);
    refused(flat, "has no class subfolders; put each class's images in a subfolder named after the class");

    const fs::path single = dir.path() / "single";
    fs::create_directories(single / "cats");
    write_random_png(single / "cats" / "a.png", 4, 4, 1, 32);
    refused(single, "has only 1 class subfolder ('cats'); a classifier needs at least 2");

    const fs::path unreadable = dir.path() / "unreadable";
    fs::create_directories(unreadable / "cats");
    fs::create_directories(unreadable / "dogs");
    write_text(unreadable / "cats" / "a.png", "text");
    write_text(unreadable / "cats" / "b.jpg", "text");
    write_text(unreadable / "dogs" / "c.jpeg", "text");
    refused(unreadable, "holds no readable PNG or JPEG image (3 files could not be read)");

    const fs::path empty_class = dir.path() / "empty-class";
    fs::create_directories(empty_class / "cats");
    fs::create_directories(empty_class / "dogs");
    write_random_png(empty_class / "cats" / "a.png", 4, 4, 1, 33);
    write_text(empty_class / "dogs" / "notes.txt", "no images here");
    refused(empty_class, "class folder 'dogs' holds no readable image");

    refused(empty_class, "image size 0x28 is out of range (1 to 4096)", options_for(0, 28, 1));
    refused(empty_class, "image size 28x4097 is out of range (1 to 4096)", options_for(28, 4097, 1));
    refused(empty_class, "channels must be 1 (grayscale) or 3 (RGB), not 2", options_for(28, 28, 2));
    CHECK(options.channels == 1);
}

TEST_CASE("A folder and classes with non-ASCII names load, with UTF-8 names", "[image_folder]") {
    test::TempDir dir("image-unicode");
    const std::u8string folder_name = u8"\u00e9t\u00e9";
    const std::u8string class_name = u8"caf\u00e9";
    const fs::path root = dir.path() / fs::path(folder_name);
    fs::create_directories(root / fs::path(class_name));
    fs::create_directories(root / "plage");
    write_random_png(root / fs::path(class_name) / fs::path(u8"tasse-\u00e0-th\u00e9.png"), 2, 2, 1, 41);
    write_random_png(root / "plage" / "sable.png", 2, 2, 1, 42);

    const datasets::ImageFolderResult result = datasets::read_image_folder(root, options_for(2, 2, 1));
    CHECK(result.dataset.name == std::string(folder_name.begin(), folder_name.end()));
    CHECK(result.dataset.class_names ==
          std::vector<std::string>{std::string(class_name.begin(), class_name.end()), "plage"});
    CHECK(result.dataset.size() == 2);
    CHECK(result.skipped.empty());
}

TEST_CASE("Reading a folder counts every image, read or skipped, against the whole", "[image_folder]") {
    test::TempDir dir("image-progress");
    const fs::path root = dir.path() / "photos";
    fs::create_directories(root / "cats");
    fs::create_directories(root / "dogs");
    for (const char* name : {"c0.png", "c1.png", "c2.png"}) write_random_png(root / "cats" / name, 3, 3, 3, 30);
    for (const char* name : {"d0.png", "d1.png"}) write_random_png(root / "dogs" / name, 3, 3, 3, 40);
    write_text(root / "dogs" / "letter.png", "not an image");
    write_text(root / "dogs" / "notes.txt", "not counted");

    std::vector<std::pair<std::size_t, std::size_t>> heard;
    const datasets::ImageFolderResult result = datasets::read_image_folder(
        root, options_for(3, 3, 3), [&](std::size_t done, std::size_t total) { heard.emplace_back(done, total); });
    CHECK(result.dataset.size() == 5);
    // 0..5 before each of the six images, then 6 of 6 at the end.
    REQUIRE(heard.size() == 7);
    for (std::size_t i = 0; i < heard.size(); ++i) {
        CHECK(heard[i].first == i);
        CHECK(heard[i].second == 6);
    }
}
