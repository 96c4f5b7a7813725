#include "ui/inside/picture_scale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace bps::ui::picture_scale {

namespace {

// ColorBrewer RdBu (11 classes), from the most negative (dark blue) to the most positive (dark
// red); the middle class, #f7f7f7, is zero.
constexpr std::array<std::array<int, 3>, 11> rdbu = {{{5, 48, 97},
                                                      {33, 102, 172},
                                                      {67, 147, 195},
                                                      {146, 197, 222},
                                                      {209, 229, 240},
                                                      {247, 247, 247},
                                                      {253, 219, 199},
                                                      {244, 165, 130},
                                                      {214, 96, 77},
                                                      {178, 24, 43},
                                                      {103, 0, 31}}};

}  // namespace

QColor diverging(float value, float magnitude) {
    if (!std::isfinite(value)) return not_finite_colour;
    const double t = magnitude > 0 ? std::clamp(static_cast<double>(value) / magnitude, -1.0, 1.0) : 0.0;
    const double position = (t + 1.0) * 0.5 * (rdbu.size() - 1);  // 0 .. 10
    const int below = std::min(static_cast<int>(position), static_cast<int>(rdbu.size()) - 2);
    const double along = position - below;
    int rgb[3];
    for (int i = 0; i < 3; ++i)
        rgb[i] = static_cast<int>(std::lround(rdbu[below][i] + along * (rdbu[below + 1][i] - rdbu[below][i])));
    return QColor(rgb[0], rgb[1], rgb[2]);
}

int channel_level(float value, float magnitude) {
    if (!std::isfinite(value)) return 0;
    const double t = magnitude > 0 ? std::clamp(static_cast<double>(value) / magnitude, -1.0, 1.0) : 0.0;
    return static_cast<int>(std::lround(255.0 * (0.5 + 0.5 * t)));
}

int grey_level(float value, float low, float high) {
    if (!(high > low)) return 128;
    const double t = std::clamp((static_cast<double>(value) - low) / (static_cast<double>(high) - low), 0.0, 1.0);
    return static_cast<int>(std::lround(255.0 * t));
}

}  // namespace bps::ui::picture_scale
