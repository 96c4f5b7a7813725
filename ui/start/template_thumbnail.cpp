#include "ui/start/template_thumbnail.h"

#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QRectF>
#include <algorithm>
#include <cmath>

#include "ui/editor/node_item.h"

namespace bps::ui {

namespace {

constexpr qreal thumbnail_margin = 4;
// A layer's box on the canvas, in scene units (NodeItem's size); the thumbnail keeps its shape.
constexpr qreal node_width = NodeItem::width;
constexpr qreal node_height = NodeItem::height;
// Layers built in code have no canvas place: they go left to right, as a project file places them.
constexpr qreal chain_step = 160;
// A network of two layers would fill the picture with two big boxes: boxes stay about the size
// they have in a network of five.
constexpr qreal max_scale = 0.25;

}  // namespace

QPixmap template_thumbnail(const model::NetworkSpec& network, QSize size, const QPalette& palette,
                           qreal device_pixel_ratio) {
    QPixmap picture(size * device_pixel_ratio);
    picture.setDevicePixelRatio(device_pixel_ratio);
    picture.fill(Qt::transparent);
    if (network.layers.empty() || size.isEmpty()) return picture;

    QHash<QString, QPointF> place;  // a layer's top-left corner on the canvas
    QRectF bounds;
    for (std::size_t index = 0; index < network.layers.size(); ++index) {
        const model::LayerSpec& layer = network.layers[index];
        const QPointF corner = layer.position ? QPointF(layer.position->x, layer.position->y)
                                              : QPointF(static_cast<qreal>(index) * chain_step, 0);
        place.insert(QString::fromStdString(layer.name), corner);
        bounds = bounds.united(QRectF(corner, QSizeF(node_width, node_height)));
    }
    const qreal scale = std::min({(size.width() - 2 * thumbnail_margin) / bounds.width(),
                                  (size.height() - 2 * thumbnail_margin) / bounds.height(), max_scale});
    // Centred in the picture.
    const QPointF offset(thumbnail_margin + (size.width() - 2 * thumbnail_margin - bounds.width() * scale) / 2,
                         thumbnail_margin + (size.height() - 2 * thumbnail_margin - bounds.height() * scale) / 2);
    const auto to_picture = [&](QPointF canvas) { return offset + (canvas - bounds.topLeft()) * scale; };

    QPainter painter(&picture);
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor line = palette.color(QPalette::Text);
    painter.setPen(QPen(QColor(line.red(), line.green(), line.blue(), 150), 1.2));
    for (std::size_t index = 0; index < network.layers.size(); ++index) {
        const model::LayerSpec& layer = network.layers[index];
        const QPointF to = to_picture(place.value(QString::fromStdString(layer.name)) + QPointF(0, node_height / 2));
        std::vector<std::string> inputs = layer.inputs;
        if (inputs.empty() && !network.explicit_inputs && index > 0) inputs.push_back(network.layers[index - 1].name);
        for (const std::string& input : inputs) {
            const auto found = place.constFind(QString::fromStdString(input));
            if (found == place.constEnd()) continue;
            const QPointF from = to_picture(*found + QPointF(node_width, node_height / 2));
            QPainterPath path(from);
            const qreal bend = std::max<qreal>(std::abs(to.x() - from.x()) / 2, 6);
            path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
            painter.drawPath(path);
        }
    }
    const qreal radius = std::max<qreal>(1.5, 10 * scale);
    for (const model::LayerSpec& layer : network.layers) {
        const QRectF box(to_picture(place.value(QString::fromStdString(layer.name))),
                         QSizeF(node_width, node_height) * scale);
        const QColor accent = layer_accent(layer.type, palette);
        painter.setPen(QPen(accent.darker(130), 1));
        painter.setBrush(accent);
        painter.drawRoundedRect(box, radius, radius);
    }
    return picture;
}

}  // namespace bps::ui
