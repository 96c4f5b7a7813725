#pragma once
// The image the network received, as an 8-bit picture a learner can look at and save (Try It) or
// see large (the one-image view): each value v in [0, 1] becomes round(v * 255), grey for one
// channel, RGB for three. The controller gives
// values that are multiples of 1/255 (drawn_image.h), so saved and read back they are exactly
// what the network received.
#include <QImage>
#include <vector>

namespace bps::ui {

// pixels: channels x height x width values (CHW). A null QImage when the channels are neither 1
// nor 3 or the sizes do not match the values; values outside [0, 1] are clamped, NaN is 0.
QImage received_image(const std::vector<float>& pixels, int channels, int height, int width);

}  // namespace bps::ui
