#pragma once
// The samples a gallery shows, one row each, in the order given (session::samples_by_loss's): what
// a tile needs to paint itself (its thumbnail, its true and predicted classes, its top-3 classes)
// as data roles, so a QListView with one painting delegate shows 10,000 samples without a widget
// per tile.
//
// Thumbnails are made on demand, when a tile is first painted, from the dataset's 8-bit pixels and
// kept in a QCache: scrolling through 10,000 images converts only those that come into view, and
// memory stays bounded however far the learner scrolls.
#include <QAbstractListModel>
#include <QCache>
#include <QImage>
#include <QStringList>
#include <cstddef>
#include <memory>
#include <vector>

#include "datasets/dataset.h"
#include "engine/session/sample_evaluation.h"

namespace bps::ui {

class SampleGalleryModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        sample_role = Qt::UserRole + 1,  // qulonglong: the sample's index in the split
        true_label_role,                 // int: the true class
        predicted_label_role,            // int: the predicted class
        true_text_role,                  // QString "true: Shirt"
        predicted_text_role,             // QString "predicted: T-shirt/top"
        wrong_role,                      // bool: predicted != true
        top_labels_role,                 // QList<int>: the 3 most probable classes, most probable first
        top_probabilities_role,          // QList<double>: their probabilities, in [0, 1]
        top_texts_role,                  // QStringList "T-shirt/top 87%", as the bars print them
        thumbnail_role,                  // QImage (grey or RGB, at most thumbnail_side); null while loading
    };
    // Sides above this are scaled down (smoothly) when the thumbnail is made; smaller images keep
    // their pixels and the delegate enlarges them by nearest neighbour.
    static constexpr int thumbnail_side = 84;
    static constexpr int top_count = 3;

    explicit SampleGalleryModel(QObject* parent = nullptr);

    // A new evaluation: no rows until show_rows.
    void set_samples(std::shared_ptr<const session::SampleResults> samples, const QStringList& class_names);
    // The images in the samples' order; null: not loaded yet (tiles show a placeholder).
    void set_images(std::shared_ptr<const datasets::Dataset> images);
    bool has_images() const { return images_ != nullptr; }
    // The samples shown, in this order. Indices outside the samples are the caller's bug: they are
    // left out rather than shown with another sample's data.
    void show_rows(std::vector<std::size_t> rows);

    const std::vector<std::size_t>& rows() const { return rows_; }
    const std::shared_ptr<const session::SampleResults>& samples() const { return samples_; }
    const QStringList& class_names() const { return class_names_; }
    QString class_name(int label) const;  // its name, or its index when it has none

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;

private:
    QImage thumbnail(std::size_t sample) const;

    std::shared_ptr<const session::SampleResults> samples_;
    std::shared_ptr<const datasets::Dataset> images_;
    QStringList class_names_;
    std::vector<std::size_t> rows_;
    // Keyed by sample; the cost is the thumbnail's bytes (a cache of ~16 MiB holds some 20,000
    // 28x28 greys, or ~800 thumbnails of the largest size).
    mutable QCache<std::size_t, QImage> thumbnails_;
};

}  // namespace bps::ui
