#include "ui/results/received_image.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace bps::ui {

namespace {

uchar byte_of(float value) {
    if (!(value > 0.0f)) return 0;  // also NaN
    return static_cast<uchar>(std::lround(double(std::min(value, 1.0f)) * 255.0));
}

}  // namespace

QImage received_image(const std::vector<float>& pixels, int channels, int height, int width) {
    if ((channels != 1 && channels != 3) || height <= 0 || width <= 0) return {};
    const std::size_t plane = std::size_t(height) * std::size_t(width);
    if (pixels.size() != plane * std::size_t(channels)) return {};
    QImage image(width, height, channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    for (int y = 0; y < height; ++y) {
        uchar* line = image.scanLine(y);
        for (int x = 0; x < width; ++x) {
            const std::size_t at = std::size_t(y) * std::size_t(width) + std::size_t(x);
            for (int c = 0; c < channels; ++c) line[x * channels + c] = byte_of(pixels[std::size_t(c) * plane + at]);
        }
    }
    return image;
}

}  // namespace bps::ui
