#include "ui/results/sample_gallery_model.h"

#include <QList>
#include <algorithm>
#include <cstdint>

#include "engine/session/sample_selection.h"

namespace bps::ui {

namespace {

constexpr qsizetype thumbnail_cache_bytes = 16 * 1024 * 1024;

// "87%", with one decimal below 10% so that small shares do not all read "0%".
QString percent_text(double probability) {
    const double percent = probability * 100.0;
    return percent < 9.95 && percent > 0 ? QString::number(percent, 'f', 1) + QLatin1Char('%')
                                         : QString::number(percent, 'f', 0) + QLatin1Char('%');
}

}  // namespace

SampleGalleryModel::SampleGalleryModel(QObject* parent) : QAbstractListModel(parent) {
    thumbnails_.setMaxCost(thumbnail_cache_bytes);
}

void SampleGalleryModel::set_samples(std::shared_ptr<const session::SampleResults> samples,
                                     const QStringList& class_names) {
    beginResetModel();
    samples_ = std::move(samples);
    class_names_ = class_names;
    rows_.clear();
    endResetModel();
}

void SampleGalleryModel::set_images(std::shared_ptr<const datasets::Dataset> images) {
    images_ = std::move(images);
    thumbnails_.clear();
    if (!rows_.empty()) emit dataChanged(index(0), index(rowCount() - 1), {thumbnail_role});
}

void SampleGalleryModel::show_rows(std::vector<std::size_t> rows) {
    const std::size_t count = samples_ ? samples_->size() : 0;
    std::erase_if(rows, [count](std::size_t sample) { return sample >= count; });
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

QString SampleGalleryModel::class_name(int label) const {
    return label >= 0 && label < class_names_.size() ? class_names_[label] : QString::number(label);
}

int SampleGalleryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant SampleGalleryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const std::size_t sample = rows_[static_cast<std::size_t>(index.row())];
    const int label = samples_->labels[sample];
    const int predicted = samples_->predicted[sample];
    switch (role) {
        case sample_role:
            return QVariant::fromValue(static_cast<qulonglong>(sample));
        case true_label_role:
            return label;
        case predicted_label_role:
            return predicted;
        case true_text_role:
            return tr("true: %1").arg(class_name(label));
        case predicted_text_role:
            return tr("predicted: %1").arg(class_name(predicted));
        case wrong_role:
            return predicted != label;
        case top_labels_role: {
            QList<int> labels;
            for (const session::ClassScore& top : session::top_classes(*samples_, sample, top_count))
                labels.append(top.label);
            return QVariant::fromValue(labels);
        }
        case top_probabilities_role: {
            QList<double> probabilities;
            for (const session::ClassScore& top : session::top_classes(*samples_, sample, top_count))
                probabilities.append(static_cast<double>(top.probability));
            return QVariant::fromValue(probabilities);
        }
        case top_texts_role: {
            QStringList texts;
            for (const session::ClassScore& top : session::top_classes(*samples_, sample, top_count))
                texts.append(class_name(top.label) + QLatin1Char(' ') +
                             percent_text(static_cast<double>(top.probability)));
            return texts;
        }
        case thumbnail_role:
            return thumbnail(sample);
        case Qt::ToolTipRole: {
            const double probability = static_cast<double>(samples_->probabilities_of(sample)[predicted]);
            return tr("Image %1 of the split · true: %2 · predicted: %3 (%4) · loss %5")
                .arg(sample)
                .arg(class_name(label), class_name(predicted), percent_text(probability))
                .arg(static_cast<double>(samples_->losses[sample]), 0, 'f', 2);
        }
        case Qt::AccessibleTextRole:
        case Qt::DisplayRole:
            return tr("true: %1, predicted: %2").arg(class_name(label), class_name(predicted));
        default:
            return {};
    }
}

QImage SampleGalleryModel::thumbnail(std::size_t sample) const {
    if (!images_ || sample >= images_->size()) return {};
    if (const QImage* kept = thumbnails_.object(sample)) return *kept;
    const datasets::ImageShape& shape = images_->shape;
    const std::vector<std::uint8_t> pixels = images_->pixels(sample);
    const bool grey = shape.channels == 1;
    const int bytes_per_line = shape.width * (grey ? 1 : 3);
    QImage image;
    if (grey || shape.channels == 3) {
        // The pixels' buffer is local: copy() makes the image own its bytes.
        image = QImage(pixels.data(), shape.width, shape.height, bytes_per_line,
                       grey ? QImage::Format_Grayscale8 : QImage::Format_RGB888)
                    .copy();
    } else {
        // Another channel count (none of the readers makes one): its first channel in grey.
        image = QImage(shape.width, shape.height, QImage::Format_Grayscale8);
        for (int y = 0; y < shape.height; ++y)
            for (int x = 0; x < shape.width; ++x)
                image.scanLine(y)[x] = pixels[static_cast<std::size_t>((y * shape.width + x) * shape.channels)];
    }
    if (image.width() > thumbnail_side || image.height() > thumbnail_side)
        image = image.scaled(thumbnail_side, thumbnail_side, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    thumbnails_.insert(sample, new QImage(image), static_cast<qsizetype>(image.sizeInBytes()));
    return image;
}

}  // namespace bps::ui
