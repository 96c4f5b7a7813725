#include "engine/session/drawn_image.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/base/number_text.h"

namespace bps::session {

namespace {

std::size_t value_count(int height, int width) {
    return static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
}

std::string size_text(int height, int width) {
    return std::to_string(height) + "x" + std::to_string(width);
}

void check_size(std::size_t values, int height, int width, const std::string& what) {
    if (height <= 0 || width <= 0)
        throw std::invalid_argument("the " + what + " is " + size_text(height, width) +
                                    " pixels: both sides must be positive");
    if (values != value_count(height, width))
        throw std::invalid_argument("the " + what + " has " + std::to_string(values) + " values, not " +
                                    size_text(height, width) + " = " + std::to_string(value_count(height, width)));
}

void check_values(std::span<const float> canvas, int width) {
    for (std::size_t i = 0; i < canvas.size(); ++i) {
        const float value = canvas[i];
        if (std::isfinite(value) && value >= 0.0f && value <= 1.0f) continue;
        const std::size_t w = static_cast<std::size_t>(width);
        throw std::invalid_argument("the canvas's value at row " + std::to_string(i / w) + ", column " +
                                    std::to_string(i % w) + " is " + format_exact(value) +
                                    (std::isfinite(value) ? ", outside [0, 1]" : ", not a finite number"));
    }
}

// One output pixel's share of each source pixel along one axis: the source span [0, source) is cut
// into `target` equal parts, and each part averages what it covers, partly covered pixels by the
// fraction covered. Works both ways (a part smaller than a pixel takes that pixel's value).
struct Coverage {
    int first = 0;
    std::vector<double> weights;  // for source pixels first, first + 1, ...; they sum to 1
};

std::vector<Coverage> area_coverage(int source, int target) {
    std::vector<Coverage> parts(static_cast<std::size_t>(target));
    const double step = static_cast<double>(source) / target;
    for (int t = 0; t < target; ++t) {
        // Products over the integer division keep the part's edges exact where they fall on pixels.
        const double begin = static_cast<double>(t) * source / target;
        const double end = static_cast<double>(t + 1) * source / target;
        Coverage& part = parts[static_cast<std::size_t>(t)];
        part.first = std::clamp(static_cast<int>(std::floor(begin)), 0, source - 1);
        const int last = std::clamp(static_cast<int>(std::ceil(end)) - 1, part.first, source - 1);
        for (int s = part.first; s <= last; ++s) {
            const double covered = std::min(end, s + 1.0) - std::max(begin, static_cast<double>(s));
            part.weights.push_back(std::max(covered, 0.0) / step);
        }
    }
    return parts;
}

// The region [top, top + rows) x [left, left + columns) of `image` (image_width wide), area-averaged
// to out_height x out_width. Separable: rows first, then columns.
std::vector<double> area_scale(std::span<const float> image, int image_width, int top, int left, int rows, int columns,
                               int out_height, int out_width) {
    const std::vector<Coverage> across = area_coverage(columns, out_width);
    const std::vector<Coverage> down = area_coverage(rows, out_height);
    const auto w = static_cast<std::size_t>(out_width);
    std::vector<double> narrowed(static_cast<std::size_t>(rows) * w, 0.0);
    for (int r = 0; r < rows; ++r) {
        const std::size_t row_start = static_cast<std::size_t>(top + r) * static_cast<std::size_t>(image_width);
        for (std::size_t c = 0; c < w; ++c) {
            double sum = 0;
            const Coverage& part = across[c];
            for (std::size_t k = 0; k < part.weights.size(); ++k)
                sum += part.weights[k] * image[row_start + static_cast<std::size_t>(left + part.first) + k];
            narrowed[static_cast<std::size_t>(r) * w + c] = sum;
        }
    }
    std::vector<double> scaled(static_cast<std::size_t>(out_height) * w, 0.0);
    for (std::size_t r = 0; r < static_cast<std::size_t>(out_height); ++r) {
        const Coverage& part = down[r];
        for (std::size_t k = 0; k < part.weights.size(); ++k) {
            const std::size_t source_row = static_cast<std::size_t>(part.first) + k;
            for (std::size_t c = 0; c < w; ++c) scaled[r * w + c] += part.weights[k] * narrowed[source_row * w + c];
        }
    }
    return scaled;
}

// As an 8-bit image would hold it, so a saved PNG reads back as exactly what the network received.
std::vector<float> quantised(const std::vector<double>& values) {
    std::vector<float> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = static_cast<float>(std::round(std::clamp(values[i], 0.0, 1.0) * 255.0) / 255.0);
    return out;
}

struct InkBox {
    int top = 0, left = 0, rows = 0, columns = 0;
};

std::optional<InkBox> ink_box(std::span<const float> canvas, int height, int width) {
    int top = height, bottom = -1, left = width, right = -1;
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c)
            if (canvas[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] >
                0.0f) {
                top = std::min(top, r);
                bottom = std::max(bottom, r);
                left = std::min(left, c);
                right = std::max(right, c);
            }
    if (bottom < 0) return std::nullopt;
    return InkBox{top, left, bottom - top + 1, right - left + 1};
}

// MNIST's 20 of 28 pixels, at least one.
int fitting_side(int side) {
    return std::max(1, static_cast<int>(std::lround(side * 20.0 / 28.0)));
}

// A whole-pixel offset that puts `centre` (measured in the placed piece) at `target`, keeping all
// of the piece inside [0, room + piece).
int placed_offset(double target, double centre, int room) {
    return std::clamp(static_cast<int>(std::lround(target - centre)), 0, room);
}

}  // namespace

DrawnImage prepare_drawing(std::span<const float> canvas, int canvas_height, int canvas_width, int height, int width,
                           bool centre) {
    check_size(canvas.size(), canvas_height, canvas_width, "canvas");
    if (height <= 0 || width <= 0)
        throw std::invalid_argument("the image to prepare is " + size_text(height, width) +
                                    " pixels: both sides must be positive");
    check_values(canvas, canvas_width);

    DrawnImage drawn;
    drawn.height = height;
    drawn.width = width;
    drawn.pixels.assign(value_count(height, width), 0.0f);
    const std::optional<InkBox> box = ink_box(canvas, canvas_height, canvas_width);
    if (!box) {
        drawn.adjusted = "nothing drawn yet";
        return drawn;
    }
    drawn.empty = false;
    if (!centre) {
        drawn.pixels = quantised(area_scale(canvas, canvas_width, 0, 0, canvas_height, canvas_width, height, width));
        drawn.adjusted = "the " + size_text(canvas_height, canvas_width) + " canvas scaled to " +
                         size_text(height, width) + ", not centred";
        return drawn;
    }

    // The longer side of the ink fills the box; the other keeps the ink's proportion.
    const int box_height = fitting_side(height), box_width = fitting_side(width);
    const double scale =
        std::min(static_cast<double>(box_height) / box->rows, static_cast<double>(box_width) / box->columns);
    const int rows = std::clamp(static_cast<int>(std::lround(box->rows * scale)), 1, box_height);
    const int columns = std::clamp(static_cast<int>(std::lround(box->columns * scale)), 1, box_width);
    const std::vector<float> piece =
        quantised(area_scale(canvas, canvas_width, box->top, box->left, box->rows, box->columns, rows, columns));

    // Measured on the quantised piece, so the result's centre of mass is within half a pixel.
    const auto [centre_row, centre_column] = centre_of_mass(piece, rows, columns);
    const int top = placed_offset(height / 2.0, centre_row, height - rows);
    const int left = placed_offset(width / 2.0, centre_column, width - columns);
    for (int r = 0; r < rows; ++r)
        std::copy_n(piece.begin() + static_cast<std::ptrdiff_t>(r) * columns, columns,
                    drawn.pixels.begin() + static_cast<std::ptrdiff_t>(top + r) * width + left);
    drawn.adjusted = "the drawing's " + size_text(box->rows, box->columns) + " pixels of ink fitted into " +
                     size_text(box_height, box_width) + " and centred by its centre of mass in " +
                     size_text(height, width);
    return drawn;
}

std::pair<double, double> centre_of_mass(std::span<const float> image, int height, int width) {
    check_size(image.size(), height, width, "image");
    double total = 0, row_sum = 0, column_sum = 0;
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            const double value =
                image[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)];
            total += value;
            row_sum += value * (r + 0.5);
            column_sum += value * (c + 0.5);
        }
    if (total <= 0) return {height / 2.0, width / 2.0};
    return {row_sum / total, column_sum / total};
}

}  // namespace bps::session
