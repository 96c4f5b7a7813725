#include "ui/results/sample_tile_delegate.h"

#include <QApplication>
#include <QFontMetrics>
#include <QImage>
#include <QList>
#include <QPainter>
#include <QPalette>
#include <QPen>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "ui/results/sample_gallery_model.h"

namespace bps::ui {

namespace {

constexpr int tile_width = 156;
constexpr int tile_margin = 5;
constexpr int picture_side = SampleGalleryModel::thumbnail_side;
constexpr int text_line = 16;
constexpr int bar_line = 15;
constexpr int tile_height =
    tile_margin + picture_side + 4 + 2 * text_line + 2 + SampleGalleryModel::top_count * bar_line + tile_margin;

// ConvNetJS's strip colours, lightened so that the class name printed over a bar stays readable.
const QColor true_bar_colour(129, 199, 132);
const QColor other_bar_colour(239, 154, 154);
const QColor bar_track_colour(236, 236, 236);
const QColor wrong_text_colour(198, 40, 40);
const QColor placeholder_colour(200, 200, 200);

// The largest whole enlargement that fits the picture box (at least 1), so every image pixel is
// drawn as a square of the same size.
QRect picture_rect(const QRect& box, const QSize& image) {
    const int scale =
        std::max(1, std::min(box.width() / std::max(1, image.width()), box.height() / std::max(1, image.height())));
    QRect rect(0, 0, image.width() * scale, image.height() * scale);
    rect.moveCenter(box.center());
    return rect;
}

}  // namespace

SampleTileDelegate::SampleTileDelegate(QObject* parent) : QStyledItemDelegate(parent) {}

QSize SampleTileDelegate::tile_size() {
    return {tile_width, tile_height};
}

QSize SampleTileDelegate::sizeHint(const QStyleOptionViewItem&, const QModelIndex&) const {
    return tile_size();
}

void SampleTileDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    painter->save();
    const QRect tile = option.rect;
    const QPalette& palette = option.palette;
    const bool selected = option.state & QStyle::State_Selected;
    const bool hovered = option.state & QStyle::State_MouseOver;
    // The chosen tile keeps its colours readable: a faint tint of the highlight and a frame in it.
    const QColor highlight = palette.color(QPalette::Highlight);
    const QColor base = palette.color(QPalette::Base);
    const QColor tint =
        QColor::fromRgbF(0.8f * base.redF() + 0.2f * highlight.redF(), 0.8f * base.greenF() + 0.2f * highlight.greenF(),
                         0.8f * base.blueF() + 0.2f * highlight.blueF());
    painter->fillRect(tile, selected ? tint : hovered ? palette.color(QPalette::AlternateBase) : base);
    if (selected) {
        painter->setPen(QPen(highlight, 2));
        painter->drawRect(tile.adjusted(1, 1, -1, -1));
    } else {
        painter->setPen(palette.color(QPalette::Midlight));
        painter->drawRect(tile.adjusted(0, 0, -1, -1));
    }

    const QRect picture_box(tile.left() + (tile.width() - picture_side) / 2, tile.top() + tile_margin, picture_side,
                            picture_side);
    const QImage thumbnail = index.data(SampleGalleryModel::thumbnail_role).value<QImage>();
    if (thumbnail.isNull()) {
        painter->fillRect(picture_box, placeholder_colour);
        QFont small = option.font;
        small.setPointSizeF(small.pointSizeF() * 0.85);
        painter->setFont(small);
        painter->setPen(QColor(90, 90, 90));
        painter->drawText(picture_box.adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap,
                          tr("loading images…"));
    } else {
        // No smoothing: enlarged by nearest neighbour, a learner sees the pixels the network sees.
        painter->setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter->drawImage(picture_rect(picture_box, thumbnail.size()), thumbnail);
    }

    painter->setFont(option.font);
    const QFontMetrics metrics(option.font);
    const int text_left = tile.left() + tile_margin;
    const int text_width = tile.width() - 2 * tile_margin;
    int y = picture_box.bottom() + 1 + 4;
    const auto draw_line = [&](const QString& text, const QColor& colour) {
        painter->setPen(colour);
        painter->drawText(QRect(text_left, y, text_width, text_line), Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(text, Qt::ElideRight, text_width));
        y += text_line;
    };
    const bool wrong = index.data(SampleGalleryModel::wrong_role).toBool();
    draw_line(index.data(SampleGalleryModel::true_text_role).toString(), palette.color(QPalette::Text));
    draw_line(index.data(SampleGalleryModel::predicted_text_role).toString(),
              wrong ? wrong_text_colour : palette.color(QPalette::Text));
    y += 2;

    // The top-3 bars: each as wide as the tile's text, filled to its probability, with the class
    // and its percentage printed over it (the percentage right-aligned, the name elided before it).
    const QList<int> labels = index.data(SampleGalleryModel::top_labels_role).value<QList<int>>();
    const QList<double> probabilities = index.data(SampleGalleryModel::top_probabilities_role).value<QList<double>>();
    const QStringList texts = index.data(SampleGalleryModel::top_texts_role).toStringList();
    const int true_label = index.data(SampleGalleryModel::true_label_role).toInt();
    QFont bar_font = option.font;
    bar_font.setPointSizeF(bar_font.pointSizeF() * 0.9);
    const QFontMetrics bar_metrics(bar_font);
    painter->setFont(bar_font);
    for (qsizetype i = 0; i < labels.size() && i < probabilities.size() && i < texts.size(); ++i) {
        const QRect bar(text_left, y + 1, text_width, bar_line - 2);
        painter->fillRect(bar, bar_track_colour);
        const int filled = static_cast<int>(std::lround(std::clamp(probabilities[i], 0.0, 1.0) * bar.width()));
        painter->fillRect(QRect(bar.left(), bar.top(), filled, bar.height()),
                          labels[i] == true_label ? true_bar_colour : other_bar_colour);
        // texts[i] is "<name> <percent>": the percentage keeps its room, the name is elided.
        const QString& text = texts[i];
        const qsizetype space = text.lastIndexOf(QLatin1Char(' '));
        const QString name = text.left(space);
        const QString percent = text.mid(space + 1);
        const QRect inside = bar.adjusted(3, 0, -3, 0);
        const int percent_width = bar_metrics.horizontalAdvance(percent);
        painter->setPen(QColor(33, 33, 33));
        painter->drawText(inside, Qt::AlignRight | Qt::AlignVCenter, percent);
        painter->drawText(inside.adjusted(0, 0, -(percent_width + 6), 0), Qt::AlignLeft | Qt::AlignVCenter,
                          bar_metrics.elidedText(name, Qt::ElideRight, inside.width() - percent_width - 6));
        y += bar_line;
    }
    painter->restore();
}

}  // namespace bps::ui
