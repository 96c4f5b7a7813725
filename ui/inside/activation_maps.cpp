#include "ui/inside/activation_maps.h"

#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/inside/picture_canvas.h"
#include "ui/inside/picture_scale.h"

namespace bps::ui {

namespace {

constexpr int maps_margin = 10;
constexpr int map_target_px = 64;    // a 7x7 map 63 px, 14x14 70 px, 28x28 56 px
constexpr int few_units = 10;        // a flat layer this small shows its values
constexpr int few_units_cell = 44;   // px
constexpr int many_units_cell = 14;  // px

QFont small_font(const QFont& font) {
    QFont small = font;
    if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.85);
    return small;
}

// Two decimals, as a learner reads them: a tiny negative value is "0.00", not "-0.00".
QString number(float value) {
    if (!std::isfinite(value)) return QString::number(value);
    const QString text = QString::number(value, 'f', 2);
    return text == "-0.00" ? QString("0.00") : text;
}

// "0.00 – 2.41"; a constant map (a channel that is off for this image) says so: "all 0.00".
QString range_text(std::pair<float, float> range) {
    if (range.first == range.second) return "all " + number(range.first);
    return QString("%1 %2 %3").arg(number(range.first)).arg(QChar(0x2013)).arg(number(range.second));
}

}  // namespace

ActivationMaps::ActivationMaps(QWidget* parent) : QWidget(parent) {
    setObjectName("insideActivations");
    canvas_ = new PictureCanvas;
    canvas_->setObjectName("insideActivationsCanvas");
    canvas_->paint = [this](QPainter& painter) { paint(painter); };
    canvas_->tooltip_at = [this](QPoint position) { return tooltip_at(position); };
    scroll_ = new PictureScrollArea(
        canvas_, [this](int width) { return relayout(width); }, this);
    scroll_->setObjectName("insideActivationsScroll");
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(scroll_);
}

QSize ActivationMaps::sizeHint() const {
    return {480, 400};
}

QSize ActivationMaps::minimumSizeHint() const {
    return {200, 140};
}

QWidget* ActivationMaps::canvas() const {
    return canvas_;
}

bool ActivationMaps::is_flat() const {
    return !activations_.values.empty() && activations_.height == 1 && activations_.width == 1;
}

int ActivationMaps::scale() const {
    return layout_.scale;
}

int ActivationMaps::columns() const {
    return layout_.columns;
}

std::size_t ActivationMaps::offset(int channel, int y, int x) const {
    return (static_cast<std::size_t>(channel) * activations_.height + y) * activations_.width + x;
}

void ActivationMaps::set_activations(ActivationSet activations) {
    const auto expected = static_cast<std::size_t>(std::max(0, activations.channels)) *
                          std::max(0, activations.height) * std::max(0, activations.width);
    if (activations.channels <= 0 || activations.height <= 0 || activations.width <= 0 ||
        activations.values.size() != expected) {
        clear(QString("%1's outputs do not match their shape (%2 values for %3x%4x%5), so they are not drawn.")
                  .arg(activations.layer)
                  .arg(activations.values.size())
                  .arg(activations.channels)
                  .arg(activations.height)
                  .arg(activations.width));
        return;
    }
    activations_ = std::move(activations);
    reason_.clear();
    // Each map's own range, or the flat layer's one range; values that are not finite are left out.
    const auto range_over = [this](std::size_t begin, std::size_t end) {
        float low = std::numeric_limits<float>::infinity(), high = -low;
        for (std::size_t i = begin; i < end; ++i) {
            const float value = activations_.values[i];
            if (!std::isfinite(value)) continue;
            low = std::min(low, value);
            high = std::max(high, value);
        }
        return low <= high ? std::pair(low, high) : std::pair(0.0f, 0.0f);
    };
    ranges_.clear();
    const std::size_t map_size = static_cast<std::size_t>(activations_.height) * activations_.width;
    const auto layer_range = range_over(0, activations_.values.size());
    for (int channel = 0; channel < activations_.channels; ++channel)
        ranges_.push_back(is_flat() ? layer_range : range_over(channel * map_size, (channel + 1) * map_size));
    rebuild_images();
    scroll_->relayout();
}

void ActivationMaps::clear(const QString& reason) {
    activations_ = ActivationSet{};
    reason_ = reason;
    ranges_.clear();
    images_.clear();
    scroll_->relayout();
}

std::pair<float, float> ActivationMaps::range_of(int channel) const {
    if (channel < 0 || channel >= static_cast<int>(ranges_.size())) return {0.0f, 0.0f};
    return ranges_[static_cast<std::size_t>(channel)];
}

QColor ActivationMaps::colour_of(int channel, float value) const {
    if (!std::isfinite(value)) return picture_scale::not_finite_colour;
    const auto [low, high] = range_of(channel);
    const int grey = picture_scale::grey_level(value, low, high);
    return QColor(grey, grey, grey);
}

float ActivationMaps::shown_value(int channel, int y, int x) const {
    if (channel < 0 || channel >= activations_.channels || y < 0 || y >= activations_.height || x < 0 ||
        x >= activations_.width)
        return std::numeric_limits<float>::quiet_NaN();
    return activations_.values[offset(channel, y, x)];
}

QString ActivationMaps::label_of(int channel) const {
    if (channel < 0 || channel >= activations_.channels) return {};
    if (is_flat()) return activations_.channels <= few_units ? number(activations_.values[channel]) : QString();
    return QString("ch %1  %2").arg(channel).arg(range_text(range_of(channel)));
}

void ActivationMaps::rebuild_images() {
    images_.clear();
    images_.reserve(static_cast<std::size_t>(activations_.channels));
    for (int channel = 0; channel < activations_.channels; ++channel) {
        QImage image(activations_.width, activations_.height, QImage::Format_RGB32);
        for (int y = 0; y < activations_.height; ++y) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
            for (int x = 0; x < activations_.width; ++x)
                line[x] = colour_of(channel, activations_.values[offset(channel, y, x)]).rgb();
        }
        images_.push_back(std::move(image));
    }
}

QString ActivationMaps::subtitle() const {
    QString text = is_flat() ? QString("%1: %2 units").arg(activations_.layer).arg(activations_.channels)
                             : QString("%1: %2 channel%3 of %4x%5")
                                   .arg(activations_.layer)
                                   .arg(activations_.channels)
                                   .arg(activations_.channels == 1 ? "" : "s")
                                   .arg(activations_.height)
                                   .arg(activations_.width);
    if (activations_.zero_fraction)
        text += QString("  \u00b7  %1% of ReLU outputs are zero").arg(std::lround(*activations_.zero_fraction * 100));
    return text;
}

ActivationMaps::Layout ActivationMaps::layout_for(int width) const {
    Layout layout;
    if (activations_.values.empty()) return layout;
    const QFontMetrics metrics(font());
    const QFontMetrics small(small_font(font()));
    int y = maps_margin;
    layout.title_y = y + metrics.ascent();
    y += metrics.height() + 2;
    layout.subtitle_y = y + small.ascent();
    y += small.height();
    layout.note_y = y + small.ascent();
    y += small.height() + 10;
    layout.origin = QPoint(maps_margin, y);
    const int available = std::max(1, width - 2 * maps_margin);

    if (is_flat()) {
        const bool few = activations_.channels <= few_units;
        layout.scale = few ? few_units_cell : many_units_cell;
        layout.map_width = layout.map_height = layout.scale;
        layout.gap = few ? 8 : 2;
        layout.cell_width = layout.map_width;
        if (few)
            for (int channel = 0; channel < activations_.channels; ++channel)
                layout.cell_width = std::max(layout.cell_width, small.horizontalAdvance(label_of(channel)) + 4);
        layout.cell_height = layout.map_height + (few ? 2 * small.height() + 4 : 0);
    } else {
        // Under each map two lines: "ch 3" and "0.00 – 2.41"; a cell is as wide as the wider of its
        // map and its labels.
        int labels_width = 0;
        for (int channel = 0; channel < activations_.channels; ++channel)
            labels_width = std::max(labels_width, small.horizontalAdvance(range_text(range_of(channel))) + 4);
        const auto rows_at = [&](int scale) {
            const int cell = std::max(activations_.width * scale, labels_width);
            const int columns = std::max(1, (available + layout.gap) / (cell + layout.gap));
            return (activations_.channels + columns - 1) / columns;
        };
        // About 64 px a map; where the width leaves room (few channels, a wide window) up to
        // twice that, as long as it takes no more rows.
        const int side = std::max(activations_.height, activations_.width);
        const auto scale_for = [side](int px) {
            return std::max(1, static_cast<int>(std::lround(static_cast<double>(px) / side)));
        };
        layout.scale = scale_for(map_target_px);
        const int rows = rows_at(layout.scale);
        while (layout.scale < scale_for(2 * map_target_px) && rows_at(layout.scale + 1) <= rows &&
               activations_.width * (layout.scale + 1) <= available)
            ++layout.scale;
        if (activations_.width * layout.scale > available) layout.scale = std::max(1, available / activations_.width);
        layout.map_width = activations_.width * layout.scale;
        layout.map_height = activations_.height * layout.scale;
        layout.cell_width = std::max(layout.map_width, labels_width);
        layout.cell_height = layout.map_height + 2 * small.height() + 4;
    }
    layout.columns = std::max(1, (available + layout.gap) / (layout.cell_width + layout.gap));
    const int rows = (activations_.channels + layout.columns - 1) / layout.columns;
    const int row_gap = is_flat() && activations_.channels > few_units ? layout.gap : layout.gap + 2;
    layout.height = y + rows * (layout.cell_height + row_gap) - row_gap + maps_margin;
    return layout;
}

int ActivationMaps::relayout(int width) {
    layout_ = layout_for(width);
    return layout_.height;
}

QRect ActivationMaps::map_rect(int channel) const {
    if (activations_.values.empty() || channel < 0 || channel >= activations_.channels) return {};
    const int row_gap = is_flat() && activations_.channels > few_units ? layout_.gap : layout_.gap + 2;
    const int row = channel / layout_.columns, column = channel % layout_.columns;
    const int cell_x = layout_.origin.x() + column * (layout_.cell_width + layout_.gap);
    const int cell_y = layout_.origin.y() + row * (layout_.cell_height + row_gap);
    return QRect(cell_x + (layout_.cell_width - layout_.map_width) / 2, cell_y, layout_.map_width, layout_.map_height);
}

QString ActivationMaps::tooltip_at(QPoint position) const {
    for (int channel = 0; channel < activations_.channels; ++channel) {
        const QRect map = map_rect(channel);
        if (!map.contains(position)) continue;
        if (is_flat()) return QString("unit %1: %2").arg(channel).arg(number(activations_.values[channel]));
        const int y = (position.y() - map.y()) / layout_.scale, x = (position.x() - map.x()) / layout_.scale;
        return QString("channel %1: min %2, max %3; at (%4, %5): %6")
            .arg(channel)
            .arg(number(range_of(channel).first))
            .arg(number(range_of(channel).second))
            .arg(x)
            .arg(y)
            .arg(number(shown_value(channel, y, x)));
    }
    return {};
}

void ActivationMaps::paint(QPainter& painter) const {
    const QColor text = palette().color(QPalette::WindowText);
    if (activations_.values.empty()) {
        if (reason_.isEmpty()) return;
        painter.setPen(text);
        painter.drawText(canvas_->rect().adjusted(2 * maps_margin, maps_margin, -2 * maps_margin, -maps_margin),
                         Qt::AlignCenter | Qt::TextWordWrap, reason_);
        return;
    }
    const int text_width = canvas_->width() - 2 * maps_margin;
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(text);
    const QString title = activations_.title.isEmpty() ? activations_.layer : activations_.title;
    painter.drawText(maps_margin, layout_.title_y, QFontMetrics(bold).elidedText(title, Qt::ElideRight, text_width));
    const QFont small = small_font(font());
    const QFontMetrics metrics(small);
    painter.setFont(small);
    painter.drawText(maps_margin, layout_.subtitle_y, metrics.elidedText(subtitle(), Qt::ElideRight, text_width));
    const QString note = is_flat() ? QString("One range for the layer: black is its min %1, white its max %2.")
                                         .arg(number(range_of(0).first))
                                         .arg(number(range_of(0).second))
                                   : QString("Each map on its own range: black is its min, white its max.");
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(maps_margin, layout_.note_y, metrics.elidedText(note, Qt::ElideRight, text_width));

    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // nearest neighbour: every value a square
    const bool labelled = !is_flat() || activations_.channels <= few_units;
    for (int channel = 0; channel < activations_.channels; ++channel) {
        const QRect map = map_rect(channel);
        painter.setPen(palette().color(QPalette::Mid));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(map.adjusted(-1, -1, 0, 0));
        painter.drawImage(map, images_[static_cast<std::size_t>(channel)]);
        if (!labelled) continue;
        const QRect lines(map.center().x() - layout_.cell_width / 2 - 2, map.bottom() + 3, layout_.cell_width + 4,
                          metrics.height());
        painter.setPen(text);
        if (is_flat()) {
            painter.drawText(lines, Qt::AlignHCenter | Qt::AlignTop, QString::number(channel));
            painter.drawText(lines.translated(0, metrics.height()), Qt::AlignHCenter | Qt::AlignTop, label_of(channel));
        } else {
            painter.drawText(lines, Qt::AlignHCenter | Qt::AlignTop, QString("ch %1").arg(channel));
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(lines.translated(0, metrics.height()), Qt::AlignHCenter | Qt::AlignTop,
                             range_text(range_of(channel)));
        }
    }
}

}  // namespace bps::ui
