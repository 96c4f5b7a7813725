#include "ui/results/sample_gallery.h"

#include <QEvent>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QListView>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/base/number_text.h"
#include "engine/session/results_tables.h"
#include "ui/results/results_export.h"
#include "ui/results/sample_gallery_model.h"
#include "ui/results/sample_tile_delegate.h"

namespace bps::ui {

namespace {

// Tiles laid out per batch of the view's timer: enough to fill a screen at once, few enough that
// laying out 10,000 never holds the window for long.
constexpr int layout_batch = 400;
constexpr int tile_gap = 6;

}  // namespace

SampleGallery::SampleGallery(QWidget* parent) : QWidget(parent) {
    model_ = new SampleGalleryModel(this);
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("gallery_title"));
    title_->setTextFormat(Qt::PlainText);
    title_->setWordWrap(true);
    title_->setContentsMargins(4, 2, 4, 2);
    QFont title_font = title_->font();
    title_font.setBold(true);
    title_->setFont(title_font);

    view_ = new QListView(this);
    view_->setObjectName(QStringLiteral("gallery_view"));
    view_->setViewMode(QListView::IconMode);
    view_->setMovement(QListView::Static);
    view_->setResizeMode(QListView::Adjust);
    view_->setWrapping(true);
    view_->setFlow(QListView::LeftToRight);
    view_->setUniformItemSizes(true);
    view_->setLayoutMode(QListView::Batched);
    view_->setBatchSize(layout_batch);
    view_->setGridSize(SampleTileDelegate::tile_size() + QSize(tile_gap, tile_gap));
    // The scroll bar is always there, so the columns (which depend on the viewport's width) never
    // make it come and go.
    view_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    view_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view_->viewport()->installEventFilter(this);
    view_->installEventFilter(this);  // Enter on the current tile opens it, as a click does
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    view_->setDragEnabled(false);
    view_->setMouseTracking(true);  // the hovered tile is lit
    view_->setItemDelegate(new SampleTileDelegate(view_));
    view_->setModel(model_);
    connect(view_, &QListView::clicked, this, &SampleGallery::tile_clicked);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title_);
    layout->addWidget(view_, 1);
    title_->setText(tr("Click a cell of the confusion matrix, a pair or a class to see its images."));
}

bool SampleGallery::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_->viewport() && event->type() == QEvent::Resize) {
        // As many whole tiles as fit in a row, the spare width shared out between them, so the
        // tiles spread over the gallery rather than leave a blank band on the right.
        const QSize tile = SampleTileDelegate::tile_size();
        // A few pixels are kept spare: a row exactly as wide as the viewport would make the view
        // offer a horizontal scroll bar.
        const int width = view_->viewport()->width() - 4;
        const int columns = std::max(1, width / (tile.width() + tile_gap));
        const QSize grid(std::max(tile.width() + tile_gap, width / columns), tile.height() + tile_gap);
        if (view_->gridSize() != grid) view_->setGridSize(grid);
    }
    if (watched == view_ && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_Return || key == Qt::Key_Enter) && view_->currentIndex().isValid()) {
            tile_clicked(view_->currentIndex());
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SampleGallery::set_samples(std::shared_ptr<const session::SampleResults> samples, const QStringList& class_names) {
    model_->set_samples(std::move(samples), class_names);
    title_->setText(tr("Click a cell of the confusion matrix, a pair or a class to see its images."));
}

void SampleGallery::show_note(const QString& note) {
    model_->show_rows({});
    title_->setText(note);
}

void SampleGallery::set_images(std::shared_ptr<const datasets::Dataset> images) {
    model_->set_images(std::move(images));
    view_->viewport()->update();
}

void SampleGallery::show_selection(const session::SampleFilter& filter, const QString& title) {
    if (!model_->samples()) {
        model_->show_rows({});
        title_->setText(tr("%1 — no evaluation to show yet").arg(title));
        return;
    }
    std::vector<std::size_t> rows;
    try {
        rows = session::samples_by_loss(*model_->samples(), filter);
    } catch (const std::invalid_argument& refused) {
        model_->show_rows({});
        title_->setText(tr("%1 — cannot be shown: %2").arg(title, QString::fromStdString(refused.what())));
        return;
    }
    const std::size_t count = rows.size();
    model_->show_rows(std::move(rows));
    view_->scrollToTop();
    if (count == 0) {
        title_->setText(tr("%1 — no images").arg(title));
        return;
    }
    const QString images =
        count == 1 ? tr("1 image") : tr("%1 images").arg(QString::fromStdString(session::format_thousands(count)));
    // Highest loss first: in a cell of right answers none is wrong, so the first are the least sure.
    const bool all_right = filter.true_class && filter.predicted && *filter.true_class == *filter.predicted;
    const QString order = count == 1  ? QString()
                          : all_right ? tr(", the least confident first")
                                      : tr(", the most confidently wrong first");
    title_->setText(tr("%1 — %2%3").arg(title, images, order));
}

const std::vector<std::size_t>& SampleGallery::shown() const {
    return model_->rows();
}

QString SampleGallery::title_text() const {
    return title_->text();
}

QRect SampleGallery::tile_rect(int row) const {
    return view_->visualRect(model_->index(row));
}

void SampleGallery::tile_clicked(const QModelIndex& index) {
    if (!index.isValid()) return;
    emit sampleActivated(static_cast<std::size_t>(index.data(SampleGalleryModel::sample_role).toULongLong()));
}

bool SampleGallery::export_png(const QString& file, QString* error) const {
    const QPixmap title = title_->grab();
    const QPixmap tiles = view_->viewport()->grab();
    QImage image(std::max(title.width(), tiles.width()), title.height() + tiles.height(), QImage::Format_RGB32);
    image.fill(palette().color(QPalette::Window));
    {
        QPainter painter(&image);
        painter.drawPixmap(0, 0, title);
        painter.drawPixmap(0, title.height(), tiles);
    }
    return save_png(image, file, error);
}

bool SampleGallery::export_csv(const QString& file, QString* error) const {
    if (!model_->samples()) {
        if (error) *error = tr("There is no evaluation to export to %1 yet.").arg(file);
        return false;
    }
    return save_text(session::samples_csv(*model_->samples(), model_->rows(), to_std_names(model_->class_names())),
                     file, error);
}

}  // namespace bps::ui
