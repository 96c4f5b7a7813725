// Pictures for `backprop inspect`: an activation grid shows each channel in its own range (min
// black, max white, constant mid grey) in a near-square grid with a separator gap, enlarged by
// nearest neighbour; a heat map turns positive heat red and negative heat blue over the grey
// image and leaves zero heat untouched; wrong sizes and non-finite values are refused with their
// context; the PNG decodes with the datasets' reader (stb_image) to exactly the picture, and a
// failed save names the file and leaves nothing behind.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>

#include "datasets/image_folder.h"
#include "engine/base/picture.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using io::Picture;

namespace {

using Rgb = std::array<int, 3>;

Rgb pixel_at(const Picture& picture, int x, int y) {
    REQUIRE(picture.channels == 3);
    const std::size_t at =
        (static_cast<std::size_t>(y) * static_cast<std::size_t>(picture.width) + static_cast<std::size_t>(x)) * 3;
    return {picture.pixels[at], picture.pixels[at + 1], picture.pixels[at + 2]};
}

Rgb grey(int value) {
    return {value, value, value};
}

const Rgb kSeparator = {io::kSeparatorColour[0], io::kSeparatorColour[1], io::kSeparatorColour[2]};

// Within one step of 255: a 50/50 blend of 8-bit values lands on .5, which either rounding may take.
bool near(const Rgb& actual, const Rgb& expected) {
    for (std::size_t c = 0; c < 3; ++c)
        if (std::abs(actual[c] - expected[c]) > 1) return false;
    return true;
}

// Channel 0 counts 0..5 (so its tile is 0, 51, ..., 255); channel 1 is constant.
const std::vector<float> kTwoChannels = {0, 1, 2, 3, 4, 5, 7, 7, 7, 7, 7, 7};

// The picture decoded by the datasets' image reader (stb_image), back in 8-bit interleaved pixels.
Picture read_back(const std::filesystem::path& file, int width, int height, int channels) {
    const std::vector<float> planes = datasets::read_image_file(file, {height, width, channels});
    Picture picture{width, height, channels, {}};
    const std::size_t plane = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    picture.pixels.resize(plane * static_cast<std::size_t>(channels));
    for (std::size_t c = 0; c < static_cast<std::size_t>(channels); ++c)
        for (std::size_t p = 0; p < plane; ++p)
            picture.pixels[p * static_cast<std::size_t>(channels) + c] =
                static_cast<std::uint8_t>(std::lround(planes[c * plane + p] * 255.0f));
    return picture;
}

std::vector<std::uint8_t> file_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE(
    "a 2-channel 2x3 activation grid puts each channel's min at black and max at white, "
    "a constant channel at mid grey, with a separator column between the tiles",
    "[picture]") {
    const Picture picture = io::activation_grid(2, 2, 3, kTwoChannels, 1);
    // ceil(sqrt(2)) = 2 columns, 1 row: 3 + 1 + 3 pixels wide, 2 high.
    REQUIRE(picture.width == 7);
    REQUIRE(picture.height == 2);
    REQUIRE(picture.channels == 3);
    REQUIRE(picture.pixels.size() == 7 * 2 * 3);
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 3; ++x) CHECK(pixel_at(picture, x, y) == grey(51 * (3 * y + x)));
        CHECK(pixel_at(picture, 3, y) == kSeparator);
        for (int x = 4; x < 7; ++x) CHECK(pixel_at(picture, x, y) == grey(128));
    }
}

TEST_CASE("an activation grid enlarged 3 times repeats each value in a 3x3 block, with a 1-pixel gap", "[picture]") {
    const Picture picture = io::activation_grid(2, 2, 3, kTwoChannels, 3);
    REQUIRE(picture.width == 3 * 3 + 1 + 3 * 3);
    REQUIRE(picture.height == 2 * 3);
    for (int y = 0; y < picture.height; ++y) {
        for (int x = 0; x < 9; ++x) CHECK(pixel_at(picture, x, y) == grey(51 * (3 * (y / 3) + x / 3)));
        CHECK(pixel_at(picture, 9, y) == kSeparator);
        for (int x = 10; x < 19; ++x) CHECK(pixel_at(picture, x, y) == grey(128));
    }
}

TEST_CASE("an activation grid is near-square, and the cells after the last channel are separator colour", "[picture]") {
    const auto [channels, columns, rows] = GENERATE(table<int, int, int>(
        {{1, 1, 1}, {2, 2, 1}, {3, 2, 2}, {4, 2, 2}, {5, 3, 2}, {9, 3, 3}, {10, 4, 3}, {16, 4, 4}, {17, 5, 4}}));
    CAPTURE(channels);
    const int height = 2, width = 3, scale = 2;
    std::vector<float> values(static_cast<std::size_t>(channels * height * width));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 6);
    const Picture picture = io::activation_grid(channels, height, width, values, scale);
    CHECK(picture.width == columns * width * scale + columns - 1);
    CHECK(picture.height == rows * height * scale + rows - 1);
    for (int cell = 0; cell < columns * rows; ++cell) {
        // The top-left pixel of each tile holds its minimum; an unused cell is all separator.
        const int left = (cell % columns) * (width * scale + 1), top = (cell / columns) * (height * scale + 1);
        CHECK(pixel_at(picture, left, top) == (cell < channels ? grey(0) : kSeparator));
        CHECK(pixel_at(picture, left + width * scale - 1, top + height * scale - 1) ==
              (cell < channels ? grey(255) : kSeparator));
    }
}

TEST_CASE("an activation grid scales each tile alone, even across float's whole range", "[picture]") {
    const float big = std::numeric_limits<float>::max();
    const float tiny = std::ldexp(1.0f, -22);
    // Channel 0 spans -max..max (a range float cannot hold); channel 1 is tiny and negative.
    const std::vector<float> values = {-big, 0.0f, big, -3 * tiny, -2 * tiny, -tiny};
    const Picture picture = io::activation_grid(2, 1, 3, values, 1);
    CHECK(pixel_at(picture, 0, 0) == grey(0));
    CHECK(pixel_at(picture, 1, 0) == grey(128));
    CHECK(pixel_at(picture, 2, 0) == grey(255));
    CHECK(pixel_at(picture, 4, 0) == grey(0));
    CHECK(pixel_at(picture, 5, 0) == grey(128));
    CHECK(pixel_at(picture, 6, 0) == grey(255));
}

TEST_CASE("an activation grid refuses sizes that do not match or are not positive, and names a non-finite channel",
          "[picture]") {
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, std::span(kTwoChannels).first(11), 1),
                      "activation_grid: 11 values for 2 channels of 2x3 (height x width); 2 x 2 x 3 expected");
    CHECK_THROWS_WITH(io::activation_grid(0, 2, 3, kTwoChannels, 1),
                      "activation_grid: channels must be positive, not 0");
    CHECK_THROWS_WITH(io::activation_grid(2, -2, -3, kTwoChannels, 1),
                      "activation_grid: height must be positive, not -2");
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, kTwoChannels, 0), "activation_grid: scale must be positive, not 0");
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, kTwoChannels, 1 << 30),
                      "activation_grid: the picture would be more than 16384 pixels wide at scale 1073741824; at "
                      "most 16384 can be drawn");
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, kTwoChannels, 3000),
                      "activation_grid: the picture would be 18001 pixels wide at scale 3000; at most 16384 can be "
                      "drawn");

    std::vector<float> values = kTwoChannels;
    values[10] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, values, 1),
                      "activation_grid: channel 1 has a non-finite value (NaN) at row 1, column 1");
    values[10] = -std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(io::activation_grid(2, 2, 3, values, 1),
                      "activation_grid: channel 1 has a non-finite value (-inf) at row 1, column 1");
}

TEST_CASE("a heat map turns positive heat red and negative heat blue, and leaves zero heat as the grey image",
          "[picture]") {
    SECTION("over a grey image") {
        // A 1x3 image of grey 0.4 (102); the hottest pixel (+2) is a 50/50 blend, -1 a quarter blend.
        const std::vector<float> image = {0.4f, 0.4f, 0.4f};
        const std::vector<float> heat = {2.0f, 0.0f, -1.0f};
        const Picture picture = io::heatmap_overlay(1, 1, 3, image, heat, 1);
        REQUIRE(picture.width == 3);
        REQUIRE(picture.height == 1);
        REQUIRE(picture.channels == 3);
        const Rgb hot = pixel_at(picture, 0, 0), cold = pixel_at(picture, 2, 0);
        CHECK(near(hot, {179, 51, 51}));  // 102 / 2 + 255 / 2, 102 / 2
        CHECK(pixel_at(picture, 1, 0) == grey(102));
        CHECK(near(cold, {77, 77, 140}));  // 102 * 3/4, 102 * 3/4 + 255 / 4
        CHECK((hot[0] > hot[1] && hot[0] > hot[2]));
        CHECK((cold[2] > cold[0] && cold[2] > cold[1]));
    }
    SECTION("over an RGB image, shown as its luma") {
        // Pixels red, green, blue, white as CHW planes; heat only on the last.
        const std::vector<float> image = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1};
        const std::vector<float> heat = {0, 0, 0, -0.5f};
        const Picture picture = io::heatmap_overlay(3, 2, 2, image, heat, 1);
        CHECK(pixel_at(picture, 0, 0) == grey(76));   // 0.299 x 255
        CHECK(pixel_at(picture, 1, 0) == grey(150));  // 0.587 x 255
        CHECK(pixel_at(picture, 0, 1) == grey(29));   // 0.114 x 255
        CHECK(near(pixel_at(picture, 1, 1), {128, 128, 255}));
    }
}

TEST_CASE("all-zero heat gives the grey image, enlarged by nearest neighbour", "[picture]") {
    const std::vector<float> image = {0.0f, 0.2f, 0.6f, 1.0f};
    const std::vector<float> heat(4, 0.0f);
    const Picture picture = io::heatmap_overlay(1, 2, 2, image, heat, 2);
    REQUIRE(picture.width == 4);
    REQUIRE(picture.height == 4);
    const int expected[2][2] = {{0, 51}, {153, 255}};
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) CHECK(pixel_at(picture, x, y) == grey(expected[y / 2][x / 2]));
}

TEST_CASE("a heat map refuses an image or heat of the wrong size, and non-finite values", "[picture]") {
    const std::vector<float> image(6, 0.5f), heat(6, 1.0f);
    CHECK_THROWS_WITH(io::heatmap_overlay(2, 2, 3, image, heat, 1),
                      "heatmap_overlay: the image must have 1 or 3 channels, not 2");
    CHECK_THROWS_WITH(io::heatmap_overlay(3, 2, 3, image, heat, 1),
                      "heatmap_overlay: the image has 6 values; 3 x 2 x 3 expected");
    CHECK_THROWS_WITH(io::heatmap_overlay(1, 2, 3, image, std::span(heat).first(5), 1),
                      "heatmap_overlay: the heat map has 5 values; 2 x 3 expected, one per image pixel");
    CHECK_THROWS_WITH(io::heatmap_overlay(1, 2, 3, image, heat, -1), "heatmap_overlay: scale must be positive, not -1");

    std::vector<float> bad_heat = heat;
    bad_heat[4] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(io::heatmap_overlay(1, 2, 3, image, bad_heat, 1),
                      "heatmap_overlay: the heat map has a non-finite value (+inf) at row 1, column 1");
    std::vector<float> bad_image = image;
    bad_image[2] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(io::heatmap_overlay(1, 2, 3, bad_image, heat, 1),
                      "heatmap_overlay: image channel 0 has a non-finite value (NaN) at row 0, column 2");
}

TEST_CASE("scale_for picks the smallest enlargement that reaches the wanted size, and at least 1", "[picture]") {
    CHECK(io::scale_for(28, 256) == 10);  // 280 >= 256 > 252
    CHECK(io::scale_for(32, 256) == 8);
    CHECK(io::scale_for(1, 5) == 5);
    CHECK(io::scale_for(300, 256) == 1);
    CHECK(io::scale_for(4, 0) == 1);
    CHECK_THROWS_WITH(io::scale_for(0, 256), "scale_for: side must be positive, not 0");
}

TEST_CASE("a PNG written decodes with an independent reader to exactly the picture", "[picture]") {
    const test::TempDir dir("picture");
    SECTION("an RGB activation grid") {
        const Picture picture = io::activation_grid(5, 3, 4, std::vector<float>(60, 0.0f), 2);
        const Picture varied = io::activation_grid(2, 2, 3, kTwoChannels, 2);
        for (const Picture& each : {picture, varied}) {
            const auto file = dir.path() / "grid.png";
            io::write_png(file, each);
            CHECK(file_bytes(file) == io::png_bytes(each));
            const Picture back = read_back(file, each.width, each.height, 3);
            CHECK(back.pixels == each.pixels);
        }
    }
    SECTION("a grey picture") {
        Picture picture{5, 3, 1, {}};
        for (int i = 0; i < 15; ++i) picture.pixels.push_back(static_cast<std::uint8_t>(i * 17));
        const auto file = dir.path() / "grey.png";
        io::write_png(file, picture);
        CHECK(read_back(file, 5, 3, 1).pixels == picture.pixels);
    }
    const std::vector<std::uint8_t> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    const std::vector<std::uint8_t> bytes = io::png_bytes({1, 1, 3, {1, 2, 3}});
    CHECK(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 8) == signature);
}

TEST_CASE("a PNG saved over an earlier file replaces it and leaves no temporary file behind", "[picture]") {
    const test::TempDir dir("picture");
    const auto file = dir.path() / "heat.png";
    { std::ofstream(file) << "an earlier file"; }
    const Picture picture = io::heatmap_overlay(1, 1, 2, std::vector<float>{0.5f, 0.5f}, std::vector<float>{1, -1}, 3);
    io::write_png(file, picture);
    CHECK(file_bytes(file) == io::png_bytes(picture));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("writing a PNG into a missing folder names the file and leaves nothing behind", "[picture]") {
    const test::TempDir dir("picture");
    const auto file = dir.path() / "missing" / "grid.png";
    const Picture picture = io::activation_grid(2, 2, 3, kTwoChannels, 1);
    CHECK_THROWS_WITH(io::write_png(file, picture), file.string() + ": cannot be saved: the folder '" +
                                                        file.parent_path().string() + "' does not exist");
    CHECK_THROWS_AS(io::write_png(file, picture), std::runtime_error);
    CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("a malformed picture is refused before anything is encoded", "[picture]") {
    CHECK_THROWS_WITH(io::png_bytes({2, 2, 3, std::vector<std::uint8_t>(11)}),
                      "png_bytes: 11 bytes for 2x2 pixels of 3 channels; 12 expected");
    CHECK_THROWS_WITH(io::png_bytes({0, 2, 3, {}}),
                      "png_bytes: a picture of 0x2 pixels and 3 channels cannot be a PNG (sides 1 to 16384, "
                      "channels 1 to 4)");
    CHECK_THROWS_AS(io::png_bytes({1, 1, 5, std::vector<std::uint8_t>(5)}), std::invalid_argument);
    const test::TempDir dir("picture");
    CHECK_THROWS_AS(io::write_png(dir.path() / "bad.png", {2, 2, 3, {}}), std::invalid_argument);
    CHECK(std::filesystem::is_empty(dir.path()));
}
