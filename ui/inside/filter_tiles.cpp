#include "ui/inside/filter_tiles.h"

#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/inside/picture_canvas.h"
#include "ui/inside/picture_scale.h"

namespace bps::ui {

namespace {

constexpr int tiles_margin = 10;
constexpr int min_tile_px = 24;  // a 3x3 kernel's tile at least: each weight 8 px
constexpr int colour_bar_width = 200;
constexpr int colour_bar_height = 12;

// The largest a tile grows to: a grid of kernels stays compact (a conv layer has hundreds), a
// first layer's few filters and a unit's image are worth a closer look.
int max_tile_px(FilterSet::Kind kind, bool grid) {
    switch (kind) {
        case FilterSet::Kind::kernels:
            return grid ? 36 : 48;
        case FilterSet::Kind::colour_kernels:
            return 48;
        case FilterSet::Kind::dense_images:
            return 64;  // a 28x28 image 2x, a 32x32 colour image 2x
    }
    return 36;
}

QFont small_font(const QFont& font) {
    QFont small = font;
    if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.85);
    return small;
}

QString number(float value) {
    return QString::number(value, 'g', 3);
}

}  // namespace

FilterTiles::FilterTiles(QWidget* parent) : QWidget(parent) {
    setObjectName("insideFilters");
    canvas_ = new PictureCanvas;
    canvas_->setObjectName("insideFiltersCanvas");
    canvas_->setMouseTracking(true);
    canvas_->paint = [this](QPainter& painter) { paint(painter); };
    canvas_->tooltip_at = [this](QPoint position) { return tooltip_at(position); };
    canvas_->clicked_at = [this](QPoint position) { clicked_at(position); };
    scroll_ = new PictureScrollArea(
        canvas_, [this](int width) { return relayout(width); }, this);
    scroll_->setObjectName("insideFiltersScroll");
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(scroll_);
}

QSize FilterTiles::sizeHint() const {
    return {640, 400};
}

QSize FilterTiles::minimumSizeHint() const {
    return {220, 140};
}

QWidget* FilterTiles::canvas() const {
    return canvas_;
}

void FilterTiles::set_filters(FilterSet filters) {
    const auto expected = static_cast<std::size_t>(std::max(0, filters.count)) * std::max(0, filters.channels) *
                          std::max(0, filters.height) * std::max(0, filters.width);
    if (filters.count <= 0 || filters.channels <= 0 || filters.height <= 0 || filters.width <= 0 ||
        filters.values.size() != expected) {
        clear(QString("%1's weights do not match their shape (%2 values for %3x%4x%5x%6), so they are not drawn.")
                  .arg(filters.layer)
                  .arg(filters.values.size())
                  .arg(filters.count)
                  .arg(filters.channels)
                  .arg(filters.height)
                  .arg(filters.width));
        return;
    }
    if (filters.kind == FilterSet::Kind::colour_kernels && filters.channels != 3) {
        clear(QString("%1 has %2 input channels, not red, green and blue, so its filters cannot be drawn in colour.")
                  .arg(filters.layer)
                  .arg(filters.channels));
        return;
    }
    filters_ = std::move(filters);
    reason_.clear();
    magnitude_ = 0;
    for (float value : filters_.values)
        if (std::isfinite(value)) magnitude_ = std::max(magnitude_, std::abs(value));
    rebuild_images();
    scroll_->relayout();
}

void FilterTiles::clear(const QString& reason) {
    filters_ = FilterSet{};
    reason_ = reason;
    magnitude_ = 0;
    images_.clear();
    scroll_->relayout();
}

bool FilterTiles::combined_colour() const {
    return filters_.channels == 3 &&
           (filters_.kind == FilterSet::Kind::colour_kernels || filters_.kind == FilterSet::Kind::dense_images);
}

std::size_t FilterTiles::offset(int filter, int channel, int y, int x) const {
    return ((static_cast<std::size_t>(filter) * filters_.channels + channel) * filters_.height + y) * filters_.width +
           x;
}

int FilterTiles::filters_shown() const {
    return layout_.shown_filters;
}

int FilterTiles::channels_shown() const {
    return layout_.shown_channels;
}

int FilterTiles::scale() const {
    return layout_.scale;
}

QString FilterTiles::caption() const {
    if (filters_.values.empty()) return {};
    const bool units = filters_.kind == FilterSet::Kind::dense_images;
    QStringList parts;
    if (layout_.grid && layout_.shown_channels < filters_.channels)
        parts << QString("%1 of %2 input channels").arg(layout_.shown_channels).arg(filters_.channels);
    if (layout_.shown_filters < filters_.count)
        parts << QString("%1 of %2 %3").arg(layout_.shown_filters).arg(filters_.count).arg(units ? "units" : "filters");
    return parts.isEmpty() ? QString() : "showing " + parts.join(", ");
}

QString FilterTiles::title() const {
    const QString size = QString("%1x%2").arg(filters_.height).arg(filters_.width);
    switch (filters_.kind) {
        case FilterSet::Kind::kernels:
            return QString("%1: %2 filters of %3 on %4 input channel%5")
                .arg(filters_.layer)
                .arg(filters_.count)
                .arg(size)
                .arg(filters_.channels)
                .arg(filters_.channels == 1 ? "" : "s");
        case FilterSet::Kind::colour_kernels:
            return QString("%1: %2 filters of %3 on the red, green and blue channels")
                .arg(filters_.layer)
                .arg(filters_.count)
                .arg(size);
        case FilterSet::Kind::dense_images:
            return QString("%1: each of its %2 units' weights as a %3%4 image")
                .arg(filters_.layer)
                .arg(filters_.count)
                .arg(filters_.channels == 1 || combined_colour() ? size
                                                                 : QString("%1x%2").arg(filters_.channels).arg(size))
                .arg(combined_colour() ? " colour" : "");
    }
    return filters_.layer;
}

void FilterTiles::rebuild_images() {
    images_.clear();
    const int filters = std::min(filters_.count, max_filters_shown);
    const bool combined = combined_colour();
    const int channels = combined ? 1 : std::min(filters_.channels, max_channels_shown);
    images_.reserve(static_cast<std::size_t>(filters) * channels);
    for (int filter = 0; filter < filters; ++filter) {
        for (int channel = 0; channel < channels; ++channel) {
            QImage image(filters_.width, filters_.height, QImage::Format_RGB32);
            for (int y = 0; y < filters_.height; ++y) {
                auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
                for (int x = 0; x < filters_.width; ++x) {
                    line[x] = combined ? colour_of_rgb(filters_.values[offset(filter, 0, y, x)],
                                                       filters_.values[offset(filter, 1, y, x)],
                                                       filters_.values[offset(filter, 2, y, x)])
                                             .rgb()
                                       : colour_of(filters_.values[offset(filter, channel, y, x)]).rgb();
                }
            }
            images_.push_back(std::move(image));
        }
    }
}

QColor FilterTiles::colour_of(float value) const {
    return picture_scale::diverging(value, magnitude_);
}

QColor FilterTiles::colour_of_rgb(float red, float green, float blue) const {
    if (!std::isfinite(red) || !std::isfinite(green) || !std::isfinite(blue)) return picture_scale::not_finite_colour;
    return QColor(picture_scale::channel_level(red, magnitude_), picture_scale::channel_level(green, magnitude_),
                  picture_scale::channel_level(blue, magnitude_));
}

FilterTiles::Layout FilterTiles::layout_for(int width) const {
    Layout layout;
    if (filters_.values.empty()) return layout;
    const QFontMetrics metrics(font());
    const QFontMetrics small(small_font(font()));
    layout.combined = combined_colour();
    layout.grid = !layout.combined && filters_.channels > 1;
    layout.shown_filters = std::min(filters_.count, max_filters_shown);
    layout.shown_channels = layout.grid ? std::min(filters_.channels, max_channels_shown) : 1;

    // The header: the title, the caption (its text is known once the columns are), the colour bar
    // with its labels under it.
    int y = tiles_margin;
    layout.title_y = y + metrics.ascent();
    y += metrics.height() + 2;
    layout.caption_y = y + small.ascent();
    y += small.height() + 6;
    layout.colour_bar = QRect(tiles_margin, y, colour_bar_width, colour_bar_height);
    y += colour_bar_height + small.height() + 10;

    // The tiles: the largest integer scale up to the kind's size that fits the width, but never
    // below a readable tile; columns that do not fit at the smallest scale are left out.
    const int labels_width = layout.grid ? small.horizontalAdvance(QString::number(layout.shown_filters - 1)) + 8 : 0;
    const int left = tiles_margin + labels_width;
    const int available = std::max(1, width - left - tiles_margin);
    const int side = std::max(filters_.height, filters_.width);
    const int smallest = std::max(1, (min_tile_px + side - 1) / side);
    const int largest = std::max(smallest, max_tile_px(filters_.kind, layout.grid) / side);
    const auto row_width = [&](int columns, int scale) {
        return columns * (filters_.width * scale + layout.gap) - layout.gap;
    };
    if (layout.grid) {
        layout.scale = smallest;
        for (int scale = largest; scale >= smallest; --scale) {
            if (row_width(layout.shown_channels, scale) <= available) {
                layout.scale = scale;
                break;
            }
        }
        if (row_width(layout.shown_channels, layout.scale) > available)
            layout.shown_channels =
                std::max(1, (available + layout.gap) / (filters_.width * layout.scale + layout.gap));
        layout.columns = layout.shown_channels;
    } else {
        layout.scale = std::max(1, std::min(largest, available / filters_.width));
        layout.columns = std::max(1, (available + layout.gap) / (filters_.width * layout.scale + layout.gap));
    }
    layout.tile_width = filters_.width * layout.scale;
    layout.tile_height = filters_.height * layout.scale;
    if (layout.grid) y += small.height() + 2;  // the channels' numbers over the columns
    layout.origin = QPoint(left, y);
    const int tiles = layout.grid ? layout.shown_filters * layout.shown_channels : layout.shown_filters;
    const int rows = layout.grid ? layout.shown_filters : (tiles + layout.columns - 1) / layout.columns;
    layout.height = y + rows * (layout.tile_height + layout.gap) - layout.gap + tiles_margin;
    return layout;
}

int FilterTiles::relayout(int width) {
    layout_ = layout_for(width);
    return layout_.height;
}

QRect FilterTiles::tile_rect(int filter, int channel) const {
    if (filters_.values.empty() || filter < 0 || filter >= layout_.shown_filters) return {};
    int row = 0, column = 0;
    if (layout_.grid) {
        if (channel < 0 || channel >= layout_.shown_channels) return {};
        row = filter;
        column = channel;
    } else {
        if (layout_.combined ? channel >= filters_.channels || channel < -1 : channel != 0) return {};
        row = filter / layout_.columns;
        column = filter % layout_.columns;
    }
    return QRect(layout_.origin.x() + column * (layout_.tile_width + layout_.gap),
                 layout_.origin.y() + row * (layout_.tile_height + layout_.gap), layout_.tile_width,
                 layout_.tile_height);
}

float FilterTiles::shown_value(int filter, int channel, int y, int x) const {
    if (tile_rect(filter, std::max(channel, 0)).isEmpty() || channel < 0 || channel >= filters_.channels || y < 0 ||
        y >= filters_.height || x < 0 || x >= filters_.width)
        return std::numeric_limits<float>::quiet_NaN();
    return filters_.values[offset(filter, channel, y, x)];
}

std::pair<int, int> FilterTiles::tile_at(QPoint position) const {
    for (int filter = 0; filter < layout_.shown_filters; ++filter) {
        const int channels = layout_.grid ? layout_.shown_channels : 1;
        for (int channel = 0; channel < channels; ++channel) {
            if (tile_rect(filter, channel).contains(position)) return {filter, layout_.combined ? -1 : channel};
        }
    }
    return {-1, -1};
}

QString FilterTiles::tooltip_at(QPoint position) const {
    const auto [filter, channel] = tile_at(position);
    if (filter < 0) return {};
    const bool units = filters_.kind == FilterSet::Kind::dense_images;
    float low = std::numeric_limits<float>::infinity(), high = -low;
    const int first = channel < 0 ? 0 : channel, last = channel < 0 ? filters_.channels - 1 : channel;
    for (int c = first; c <= last; ++c)
        for (int y = 0; y < filters_.height; ++y)
            for (int x = 0; x < filters_.width; ++x) {
                const float value = filters_.values[offset(filter, c, y, x)];
                low = std::min(low, value);
                high = std::max(high, value);
            }
    const QString which = channel < 0              ? QString("red, green and blue")
                          : filters_.channels == 1 ? QString()
                                                   : QString("channel %1").arg(channel);
    return QString("%1 %2%3%4: min %5 .. max %6")
        .arg(units ? "unit" : "filter")
        .arg(filter)
        .arg(which.isEmpty() ? "" : ", ")
        .arg(which)
        .arg(number(low))
        .arg(number(high));
}

void FilterTiles::clicked_at(QPoint position) {
    const auto [filter, channel] = tile_at(position);
    if (filter >= 0) emit tileClicked(filter, channel);
}

void FilterTiles::paint(QPainter& painter) const {
    if (filters_.values.empty()) {
        if (reason_.isEmpty()) return;
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(canvas_->rect().adjusted(2 * tiles_margin, tiles_margin, -2 * tiles_margin, -tiles_margin),
                         Qt::AlignCenter | Qt::TextWordWrap, reason_);
        return;
    }
    paint_header(painter);
    paint_colour_bar(painter);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // nearest neighbour: every weight a square
    const QColor frame = palette().color(QPalette::Mid);
    const int channels = layout_.grid ? layout_.shown_channels : 1;
    const int built_channels = layout_.combined ? 1 : std::min(filters_.channels, max_channels_shown);
    for (int filter = 0; filter < layout_.shown_filters; ++filter) {
        for (int channel = 0; channel < channels; ++channel) {
            const QRect tile = tile_rect(filter, channel);
            painter.setPen(frame);
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(tile.adjusted(-1, -1, 0, 0));
            painter.drawImage(tile, images_[static_cast<std::size_t>(filter) * built_channels + channel]);
        }
    }
    if (!layout_.grid) return;
    // Which filter a row is, which input channel a column.
    painter.setFont(small_font(font()));
    painter.setPen(palette().color(QPalette::WindowText));
    const QFontMetrics small(painter.font());
    for (int channel = 0; channel < layout_.shown_channels; ++channel) {
        const QRect tile = tile_rect(0, channel);
        painter.drawText(QRect(tile.x() - 4, tile.y() - small.height() - 2, tile.width() + 8, small.height()),
                         Qt::AlignHCenter | Qt::AlignBottom, QString::number(channel));
    }
    for (int filter = 0; filter < layout_.shown_filters; ++filter) {
        const QRect tile = tile_rect(filter, 0);
        painter.drawText(QRect(tiles_margin, tile.y(), tile.x() - tiles_margin - 6, tile.height()),
                         Qt::AlignRight | Qt::AlignVCenter, QString::number(filter));
    }
}

void FilterTiles::paint_header(QPainter& painter) const {
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::WindowText));
    const int text_width = canvas_->width() - 2 * tiles_margin;
    painter.drawText(tiles_margin, layout_.title_y, QFontMetrics(bold).elidedText(title(), Qt::ElideRight, text_width));
    const QFont small = small_font(font());
    painter.setFont(small);
    QString line;
    if (layout_.grid)
        line = QString("A row per %1, a column per input channel.")
                   .arg(filters_.kind == FilterSet::Kind::dense_images ? "unit" : "filter");
    const QString shown = caption();
    if (!shown.isEmpty()) line += (line.isEmpty() ? "" : " ") + shown.left(1).toUpper() + shown.mid(1) + ".";
    if (line.isEmpty()) line = "Hover over a tile for its numbers.";
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(tiles_margin, layout_.caption_y, QFontMetrics(small).elidedText(line, Qt::ElideRight, text_width));
}

void FilterTiles::paint_colour_bar(QPainter& painter) const {
    const QRect bar = layout_.colour_bar;
    const bool colour = layout_.combined;
    for (int x = 0; x < bar.width(); ++x) {
        const float value = magnitude_ * (2.0f * (x + 0.5f) / bar.width() - 1.0f);
        const QColor shade = colour ? colour_of_rgb(value, value, value) : colour_of(value);
        painter.fillRect(QRect(bar.x() + x, bar.y(), 1, bar.height()), shade);
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar.adjusted(-1, -1, 0, 0));

    const QFont small = small_font(font());
    painter.setFont(small);
    const QFontMetrics metrics(small);
    painter.setPen(palette().color(QPalette::WindowText));
    const QRect labels(bar.x(), bar.bottom() + 2, bar.width(), metrics.height());
    const QString m = number(magnitude_);
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QString("%1%2").arg(QChar(0x2212)).arg(m));
    painter.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, "0");
    painter.drawText(labels, Qt::AlignRight | Qt::AlignTop, "+" + m);
    // What the colours mean, beside the bar.
    const QString meaning =
        colour ? QString(
                     "Each colour channel on its own: dark is %1%2, grey is 0, bright is +%2; one scale for the layer.")
                     .arg(QChar(0x2212))
                     .arg(m)
               : QString("Blue weights are negative, white near 0, red positive; one scale for the whole layer.");
    const int left = labels.right() + 12;
    painter.drawText(
        QRect(left, bar.y() - 2, std::max(0, canvas_->width() - left - tiles_margin), 2 * metrics.height()),
        Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, meaning);
}

}  // namespace bps::ui
