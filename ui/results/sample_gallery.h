#pragma once
// The gallery of the Results tab: the images of one confusion cell, one true class or one predicted
// class, the most confidently wrong first (highest loss first, as fast.ai's plot_top_losses), each
// tile with its true and predicted classes and a top-3 probability bar (ConvNetJS's test strip).
// Clicking a tile (or Enter on the current one) asks for the one-image view (sampleActivated).
//
// It only paints and forwards: the evaluation and the images arrive as plain values, shared and
// read-only. A QListView over SampleGalleryModel, painted by SampleTileDelegate: every tile has the
// same size and is laid out in batches, thumbnails are made when first shown, so 10,000 images
// scroll smoothly.
#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <vector>

#include "datasets/dataset.h"
#include "engine/session/sample_evaluation.h"
#include "engine/session/sample_selection.h"

class QLabel;
class QListView;
class QModelIndex;

namespace bps::ui {

class SampleGalleryModel;

class SampleGallery : public QWidget {
    Q_OBJECT
public:
    explicit SampleGallery(QWidget* parent = nullptr);

    // A new evaluation (a run, a split, an epoch): nothing is shown until show_selection.
    void set_samples(std::shared_ptr<const session::SampleResults> samples, const QStringList& class_names);
    // The split's images, in the samples' order. Null until they are loaded: tiles show a grey
    // placeholder saying "loading images…".
    void set_images(std::shared_ptr<const datasets::Dataset> images);

    // Shows the samples that pass `filter`, highest loss first (session::samples_by_loss), under
    // "<title> — 112 images, the most confidently wrong first". A class outside the samples' shows
    // nothing and says so in the title line.
    void show_selection(const session::SampleFilter& filter, const QString& title);
    // No images, and why in the title line ("the validation images are not kept one by one").
    void show_note(const QString& note);
    // The samples shown, in the gallery's order.
    const std::vector<std::size_t>& shown() const;
    QString title_text() const;

    // The tiles as the learner sees them (the title line and the visible part of the gallery).
    bool export_png(const QString& file, QString* error) const;
    // The shown samples as session::samples_csv writes them.
    bool export_csv(const QString& file, QString* error) const;

    // For tests: the view, its model (SampleGalleryModel's roles), where a row's tile lies in the
    // view's viewport.
    QListView* view() const { return view_; }
    SampleGalleryModel* model() const { return model_; }
    QRect tile_rect(int row) const;

signals:
    // The sample's index in the split.
    void sampleActivated(std::size_t sample);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void tile_clicked(const QModelIndex& index);

    SampleGalleryModel* model_ = nullptr;
    QListView* view_ = nullptr;
    QLabel* title_ = nullptr;
};

}  // namespace bps::ui
