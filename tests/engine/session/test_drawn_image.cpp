// A learner's drawing prepared as MNIST's digits were: the ink fitted into 20x20 keeping its
// aspect ratio, area-averaged, centred by its centre of mass in 28x28, and quantised to 8 bits;
// without centring the canvas is only scaled. Checked against values worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/session/drawn_image.h"

using namespace bps::session;

namespace {

// A canvas of zeros with the rectangle [top, top + rows) x [left, left + columns) set to `value`.
std::vector<float> canvas_with_block(int height, int width, int top, int left, int rows, int columns,
                                     float value = 1.0f) {
    std::vector<float> canvas(static_cast<std::size_t>(height) * static_cast<std::size_t>(width), 0.0f);
    for (int r = top; r < top + rows; ++r)
        for (int c = left; c < left + columns; ++c) canvas[static_cast<std::size_t>(r * width + c)] = value;
    return canvas;
}

float at(const DrawnImage& image, int row, int column) {
    return image.pixels[static_cast<std::size_t>(row * image.width + column)];
}

// The rows and columns that hold ink (values above 0): {top, left, rows, columns}.
struct Extent {
    int top = -1, left = -1, rows = 0, columns = 0;
};
Extent ink_extent(const DrawnImage& image) {
    int top = image.height, bottom = -1, left = image.width, right = -1;
    for (int r = 0; r < image.height; ++r)
        for (int c = 0; c < image.width; ++c)
            if (at(image, r, c) > 0.0f) {
                top = std::min(top, r);
                bottom = std::max(bottom, r);
                left = std::min(left, c);
                right = std::max(right, c);
            }
    if (bottom < 0) return {};
    return {top, left, bottom - top + 1, right - left + 1};
}

}  // namespace

TEST_CASE("the centre of mass of a hand-made image", "[drawn-image]") {
    // 3x4: ink 1 at (0, 0) and 3 at (2, 3); pixel centres at +0.5.
    std::vector<float> image(12, 0.0f);
    image[0] = 1.0f;
    image[2 * 4 + 3] = 3.0f;
    const auto [row, column] = centre_of_mass(image, 3, 4);
    CHECK(row == Approx((1 * 0.5 + 3 * 2.5) / 4));
    CHECK(column == Approx((1 * 0.5 + 3 * 3.5) / 4));

    const std::vector<float> blank(12, 0.0f);
    CHECK(centre_of_mass(blank, 3, 4) == std::pair<double, double>{1.5, 2.0});
    REQUIRE_THROWS_WITH(centre_of_mass(blank, 4, 4), "the image has 12 values, not 4x4 = 16");
    REQUIRE_THROWS_WITH(centre_of_mass(blank, 0, 12), "the image is 0x12 pixels: both sides must be positive");
}

TEST_CASE("an off-centre blob is moved to the centre by its centre of mass, and stays put without centring",
          "[drawn-image]") {
    // A 40x60 blob in the top-left corner of a 280x280 canvas, with a heavier 10x10 part at its
    // bottom right so that its centre of mass is not its box's centre.
    std::vector<float> canvas = canvas_with_block(280, 280, 10, 5, 40, 60, 0.5f);
    for (int r = 40; r < 50; ++r)
        for (int c = 55; c < 65; ++c) canvas[static_cast<std::size_t>(r * 280 + c)] = 1.0f;

    const DrawnImage centred = prepare_drawing(canvas, 280, 280, 28, 28);
    REQUIRE(centred.height == 28);
    REQUIRE(centred.width == 28);
    REQUIRE(centred.pixels.size() == 28u * 28u);
    CHECK_FALSE(centred.empty);
    const auto [row, column] = centre_of_mass(centred.pixels, 28, 28);
    CHECK(std::abs(row - 14.0) <= 0.5);
    CHECK(std::abs(column - 14.0) <= 0.5);
    // The longer side (60 wide) fills the 20 px box, the other keeps the proportion: 40 * 20 / 60.
    const Extent extent = ink_extent(centred);
    CHECK(extent.columns == 20);
    CHECK(std::abs(extent.rows - 40.0 * 20 / 60) <= 1.0);
    CHECK(centred.adjusted ==
          "the drawing's 40x60 pixels of ink fitted into 20x20 and centred by its centre of mass in 28x28");

    // Scaled by 10 only: the blob stays in the corner, rows 1 to 4 and columns 0 to 6.
    const DrawnImage plain = prepare_drawing(canvas, 280, 280, 28, 28, false);
    CHECK_FALSE(plain.empty);
    const Extent corner = ink_extent(plain);
    CHECK(corner.top == 1);
    CHECK(corner.left == 0);
    CHECK(corner.rows == 4);
    CHECK(corner.columns == 7);
    const auto [plain_row, plain_column] = centre_of_mass(plain.pixels, 28, 28);
    CHECK(plain_row < 5.0);
    CHECK(plain_column < 7.0);
    CHECK(plain.adjusted == "the 280x280 canvas scaled to 28x28, not centred");
}

TEST_CASE("a tall thin stroke fills the box's height and keeps its aspect ratio", "[drawn-image]") {
    // 200 high, 24 wide: 20 high and 24 * 20 / 200 = 2.4 wide once fitted.
    const std::vector<float> canvas = canvas_with_block(280, 280, 40, 200, 200, 24);
    const DrawnImage drawn = prepare_drawing(canvas, 280, 280, 28, 28);
    const Extent extent = ink_extent(drawn);
    CHECK(extent.rows == 20);
    CHECK(extent.columns < 20);
    CHECK(std::abs(extent.columns - 2.4) <= 1.0);
    // Centred: 4 rows of margin above and below.
    CHECK(extent.top == 4);
    const auto [row, column] = centre_of_mass(drawn.pixels, 28, 28);
    CHECK(std::abs(row - 14.0) <= 0.5);
    CHECK(std::abs(column - 14.0) <= 0.5);
    CHECK(drawn.adjusted ==
          "the drawing's 200x24 pixels of ink fitted into 20x20 and centred by its centre of mass in 28x28");
}

TEST_CASE("other image sizes keep MNIST's proportion of box to image", "[drawn-image]") {
    // 56x42: a box of round(56 * 20 / 28) = 40 by round(42 * 20 / 28) = 30; a square of ink fits
    // the narrower side, 30x30.
    const std::vector<float> canvas = canvas_with_block(100, 100, 60, 60, 30, 30);
    const DrawnImage drawn = prepare_drawing(canvas, 100, 100, 56, 42);
    REQUIRE(drawn.pixels.size() == 56u * 42u);
    const Extent extent = ink_extent(drawn);
    CHECK(extent.rows == 30);
    CHECK(extent.columns == 30);
    // The whole square is ink: its centre of mass falls exactly on (28, 21).
    CHECK(extent.top == 13);
    CHECK(extent.left == 6);
    CHECK(drawn.adjusted ==
          "the drawing's 30x30 pixels of ink fitted into 40x30 and centred by its centre of mass in 56x42");
}

TEST_CASE("ink near the edge is shifted only as far as keeps all of it inside", "[drawn-image]") {
    // A short, wide bar, faint but for its left end: fitted to 20 px, its centre of mass is 1.44
    // px from its left edge, so centring would start it at column 13 and cut 5 columns off the
    // right; it stops at column 8, its right edge on the image's.
    std::vector<float> canvas = canvas_with_block(28, 28, 10, 0, 2, 28, 1.0f / 255);
    for (int r = 10; r < 12; ++r) canvas[static_cast<std::size_t>(r * 28)] = 1.0f;
    const DrawnImage drawn = prepare_drawing(canvas, 28, 28, 28, 28);
    const Extent extent = ink_extent(drawn);
    CHECK(extent.left >= 0);
    CHECK(extent.left + extent.columns <= 28);
    CHECK(extent.columns == 20);
    CHECK(extent.left == 8);
    const double column = centre_of_mass(drawn.pixels, 28, 28).second;
    // The first column holds (1 + 0.4 / 255) / 1.4, 182 of 255; the other 19 hold 1 of 255.
    CHECK(column == Approx(8 + (182 * 0.5 + 199.5) / (182 + 19)));
}

TEST_CASE("area scaling averages what each output pixel covers", "[drawn-image]") {
    // 56x56 to 28x28: each output pixel is the mean of a 2x2 block.
    const DrawnImage whole = prepare_drawing(canvas_with_block(56, 56, 10, 20, 2, 2), 56, 56, 28, 28, false);
    CHECK(at(whole, 5, 10) == 1.0f);
    int lit = 0;
    for (float value : whole.pixels) lit += value > 0.0f ? 1 : 0;
    CHECK(lit == 1);

    // One column of the 2x2 block: half the output pixel, 127.5 of 255, stored as 128/255.
    const DrawnImage half = prepare_drawing(canvas_with_block(56, 56, 10, 20, 2, 1), 56, 56, 28, 28, false);
    CHECK(std::abs(at(half, 5, 10) - 0.5f) <= 1.0f / 255);
    CHECK(at(half, 5, 10) == Approx(128.0 / 255));

    // 3 source pixels to 2: output pixel 0 covers source 0 and half of source 1.
    // Source row [1, 0.4, 0]: outputs (1 + 0.2) / 1.5 = 0.8 and (0.2 + 0) / 1.5 = 0.1333.
    std::vector<float> row(3 * 3, 0.0f);
    for (int r = 0; r < 3; ++r) {
        row[static_cast<std::size_t>(r * 3)] = 1.0f;
        row[static_cast<std::size_t>(r * 3 + 1)] = 0.4f;
    }
    const DrawnImage thirds = prepare_drawing(row, 3, 3, 3, 2, false);
    CHECK(at(thirds, 1, 0) == Approx(std::round(0.8 * 255) / 255));
    CHECK(at(thirds, 1, 1) == Approx(std::round(0.2 / 1.5 * 255) / 255));
}

TEST_CASE("every prepared value is a multiple of 1/255 in [0, 1]", "[drawn-image]") {
    // A smooth ramp of ink whose scaled values fall between the 8-bit steps.
    std::vector<float> canvas(97 * 83);
    for (std::size_t i = 0; i < canvas.size(); ++i) canvas[i] = static_cast<float>((i * 37) % 1000) / 999.0f;
    for (bool centre : {true, false}) {
        const DrawnImage drawn = prepare_drawing(canvas, 97, 83, 28, 28, centre);
        REQUIRE(drawn.pixels.size() == 28u * 28u);
        bool on_steps = true;
        for (float value : drawn.pixels) {
            const double steps = static_cast<double>(value) * 255;
            on_steps = on_steps && value >= 0.0f && value <= 1.0f && std::abs(steps - std::round(steps)) < 1e-4;
        }
        CHECK(on_steps);
    }
}

TEST_CASE("an empty canvas gives an empty image and says nothing is drawn", "[drawn-image]") {
    const std::vector<float> canvas(280 * 280, 0.0f);
    for (bool centre : {true, false}) {
        const DrawnImage drawn = prepare_drawing(canvas, 280, 280, 28, 28, centre);
        CHECK(drawn.empty);
        CHECK(drawn.pixels == std::vector<float>(28 * 28, 0.0f));
        CHECK(drawn.adjusted == "nothing drawn yet");
    }
}

TEST_CASE("bad sizes and values are refused with where they are", "[drawn-image]") {
    const std::vector<float> canvas(10 * 10, 0.0f);
    REQUIRE_THROWS_AS(prepare_drawing(canvas, 10, 11, 28, 28), std::invalid_argument);
    REQUIRE_THROWS_WITH(prepare_drawing(canvas, 10, 11, 28, 28), "the canvas has 100 values, not 10x11 = 110");
    REQUIRE_THROWS_WITH(prepare_drawing(canvas, -10, -10, 28, 28),
                        "the canvas is -10x-10 pixels: both sides must be positive");
    REQUIRE_THROWS_WITH(prepare_drawing(canvas, 10, 10, 0, 28),
                        "the image to prepare is 0x28 pixels: both sides must be positive");

    std::vector<float> bright = canvas;
    bright[3 * 10 + 7] = 1.5f;
    REQUIRE_THROWS_WITH(prepare_drawing(bright, 10, 10, 28, 28),
                        "the canvas's value at row 3, column 7 is 1.5, outside [0, 1]");
    std::vector<float> negative = canvas;
    negative[9] = -0.25f;
    REQUIRE_THROWS_WITH(prepare_drawing(negative, 10, 10, 28, 28),
                        "the canvas's value at row 0, column 9 is -0.25, outside [0, 1]");
    std::vector<float> not_a_number = canvas;
    not_a_number[99] = std::numeric_limits<float>::quiet_NaN();
    REQUIRE_THROWS_WITH(prepare_drawing(not_a_number, 10, 10, 28, 28),
                        "the canvas's value at row 9, column 9 is nan, not a finite number");
    std::vector<float> infinite = canvas;
    infinite[10] = std::numeric_limits<float>::infinity();
    REQUIRE_THROWS_WITH(prepare_drawing(infinite, 10, 10, 28, 28),
                        "the canvas's value at row 1, column 0 is inf, not a finite number");
}
