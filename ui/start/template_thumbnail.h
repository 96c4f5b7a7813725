#pragma once
// A small picture of a network for the Start page: each layer a box in its palette group's colour
// at its place on the canvas, the connections as lines, all scaled to fit. It shows the network's
// shape at a glance (a short chain, a long one, branches) without building a canvas.
#include <QPalette>
#include <QPixmap>
#include <QSize>

#include "engine/model/network_spec.h"

namespace bps::ui {

// `size` in device-independent pixels; the pixmap has `device_pixel_ratio` more pixels, so it is
// sharp on a 2x screen. A network with no layers gives an empty (transparent) picture.
QPixmap template_thumbnail(const model::NetworkSpec& network, QSize size, const QPalette& palette,
                           qreal device_pixel_ratio = 1.0);

}  // namespace bps::ui
