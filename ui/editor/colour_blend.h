#pragma once
// A colour between two of the palette's, so that the editor's grid, nodes and captions follow a
// light or a dark theme rather than fixed colours.
#include <QColor>

namespace bps::ui {

// `b_share` of b and the rest of a, channel by channel.
inline QColor blend(const QColor& a, const QColor& b, double b_share) {
    const double a_share = 1 - b_share;
    return QColor::fromRgbF(static_cast<float>(a.redF() * a_share + b.redF() * b_share),
                            static_cast<float>(a.greenF() * a_share + b.greenF() * b_share),
                            static_cast<float>(a.blueF() * a_share + b.blueF() * b_share));
}

}  // namespace bps::ui
