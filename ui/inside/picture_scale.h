#pragma once
// The colour scales of the Inside view's pictures, one place so that the widgets, their legends
// and their tests agree to the unit.
//
// - diverging: a weight's sign and size, blue below zero, near-white at zero, red above
//   (ColorBrewer's RdBu, reversed so that red is positive), over one symmetric range [-m, m];
// - channel_level: one colour channel of an RGB filter, 0.5 + 0.5 v / m, so grey is zero;
// - grey_level: an activation within its own [low, high], black at low, white at high, mid-grey
//   for a map whose values are all equal.
// Values that are not finite (a diverged run) are drawn magenta, which no scale uses.
#include <QColor>

namespace bps::ui::picture_scale {

inline const QColor not_finite_colour(255, 0, 255);

// The diverging colour of `value` on [-magnitude, magnitude]; values beyond are clamped, and a
// magnitude of 0 (a layer of zeros) draws everything as zero.
QColor diverging(float value, float magnitude);

// 0..255: the level of one colour channel for `value` on [-magnitude, magnitude].
int channel_level(float value, float magnitude);

// 0..255: the grey of `value` on [low, high] (128 when low == high).
int grey_level(float value, float low, float high);

}  // namespace bps::ui::picture_scale
