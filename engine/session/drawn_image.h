#pragma once
// A learner's drawing made into what the network receives, as MNIST's digits were made (LeCun,
// Cortes and Burges): the ink's bounding box is scaled, keeping its aspect ratio, to fit a 20x20
// box (anti-aliased, by area), and placed in the 28x28 image so that its centre of mass falls on
// the image's centre. Demos that skip this misread drawn digits; with `centre` off the whole canvas
// is only scaled down, which a learner can switch on to see that failure. Pure C++, no device.
//
// For other image sizes the box keeps MNIST's proportion: round(side * 20 / 28) on each side.
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace bps::session {

struct DrawnImage {
    int height = 0, width = 0;
    // height x width values in [0, 1], ink 1 (white on black, as MNIST's digits). Every value is a
    // multiple of 1/255, as an 8-bit image's: saved as an 8-bit PNG, the picture read back is
    // exactly what the network received.
    std::vector<float> pixels;
    bool empty = true;  // no ink on the canvas: the pixels are all 0
    // What was done, for the panel: "the drawing's 143x201 pixels of ink fitted into 20x20 and
    // centred by its centre of mass in 28x28", or "the 280x280 canvas scaled to 28x28, not centred".
    std::string adjusted;
};

// canvas: canvas_height x canvas_width values in [0, 1], ink 1. Output height x width (28 x 28 for
// MNIST). std::invalid_argument for sizes that are not positive or do not match, or values outside
// [0, 1] or not finite.
DrawnImage prepare_drawing(std::span<const float> canvas, int canvas_height, int canvas_width, int height, int width,
                           bool centre = true);

// The centre of mass (row, column) of an image's values, pixel centres at (r + 0.5, c + 0.5)
// measured from the top-left corner; the image's centre (height / 2, width / 2) for an image with
// no ink. std::invalid_argument for sizes that do not match.
std::pair<double, double> centre_of_mass(std::span<const float> image, int height, int width);

}  // namespace bps::session
