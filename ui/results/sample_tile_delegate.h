#pragma once
// Paints one gallery tile from SampleGalleryModel's roles, as ConvNetJS's test strip does: the
// image enlarged by nearest neighbour (pixels stay crisp), "true: …" and "predicted: …" (red when
// wrong), and the three most probable classes as short bars with their names and percentages,
// green on the true class and red on the others. Every tile has the same size, so the view can lay
// out 10,000 of them by arithmetic; long class names are elided, never clipped mid-letter.
#include <QStyledItemDelegate>

namespace bps::ui {

class SampleTileDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit SampleTileDelegate(QObject* parent = nullptr);

    // The size of every tile, for the view's grid.
    static QSize tile_size();

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace bps::ui
