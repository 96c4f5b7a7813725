#include "ui/results/sample_detail.h"

#include <QBoxLayout>
#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>

#include "engine/base/picture.h"
#include "ui/results/probability_bars.h"
#include "ui/results/received_image.h"
#include "ui/results/results_export.h"

namespace bps::ui {

namespace {

// The large picture's side: MNIST's 28 pixels become 280, CIFAR's 32 become 288; an image already
// this large is shown as it is.
constexpr int large_side = 280;

QImage picture_image(const io::Picture& picture) {
    return QImage(picture.pixels.data(), picture.width, picture.height, picture.width * picture.channels,
                  picture.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888)
        .copy();
}

// The image in its own colours (grey or RGB), enlarged by nearest neighbour.
QImage plain_image(const std::vector<float>& image, int channels, int height, int width, int scale) {
    return received_image(image, channels, height, width)
        .scaled(width * scale, height * scale, Qt::IgnoreAspectRatio, Qt::FastTransformation);
}

QString percent_text(float probability) {
    return QString::number(static_cast<double>(probability) * 100.0, 'f', 1) + QLatin1Char('%');
}

QString loss_text(double loss) {
    return loss < 0.01 ? QString::number(loss, 'g', 2) : QString::number(loss, 'f', 2);
}

}  // namespace

SampleDetail::SampleDetail(QWidget* parent) : QWidget(parent) {
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("detail_summary"));
    summary_->setTextFormat(Qt::PlainText);
    summary_->setWordWrap(true);
    QFont bold = summary_->font();
    bold.setBold(true);
    summary_->setFont(bold);

    image_button_ = new QPushButton(tr("Image"), this);
    occlusion_button_ = new QPushButton(tr("Occlusion"), this);
    saliency_button_ = new QPushButton(tr("Saliency"), this);
    image_button_->setToolTip(tr("The image alone, as the network receives it"));
    occlusion_button_->setToolTip(tr("Where hiding the image changes the answer"));
    saliency_button_->setToolTip(tr("Where a tiny change of a pixel would move the class's score"));
    buttons_ = new QButtonGroup(this);
    buttons_->setExclusive(true);
    for (QPushButton* button : {image_button_, occlusion_button_, saliency_button_}) {
        button->setCheckable(true);
        buttons_->addButton(button);
    }
    image_button_->setChecked(true);
    connect(image_button_, &QPushButton::clicked, this, [this] { choose_overlay(Overlay::image); });
    connect(occlusion_button_, &QPushButton::clicked, this, [this] { choose_overlay(Overlay::occlusion); });
    connect(saliency_button_, &QPushButton::clicked, this, [this] { choose_overlay(Overlay::saliency); });

    picture_ = new QLabel(this);
    picture_->setObjectName(QStringLiteral("detail_picture"));
    picture_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    sentence_ = new QLabel(this);
    sentence_->setObjectName(QStringLiteral("overlay_sentence"));
    sentence_->setTextFormat(Qt::RichText);  // the overlay's name in bold, the rest escaped
    sentence_->setWordWrap(true);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("insight_status"));
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    bars_ = new ProbabilityBars(this);

    auto* button_row = new QHBoxLayout;
    button_row->setContentsMargins(0, 0, 0, 0);
    button_row->setSpacing(6);
    button_row->addWidget(image_button_);
    button_row->addWidget(occlusion_button_);
    button_row->addWidget(saliency_button_);
    button_row->addStretch(1);
    auto* picture_column = new QVBoxLayout;
    picture_column->setContentsMargins(0, 0, 0, 0);
    picture_column->setSpacing(6);
    picture_column->addLayout(button_row);
    picture_column->addWidget(picture_);
    picture_column->addWidget(sentence_);
    picture_column->addWidget(status_);
    picture_column->addStretch(1);
    columns_ = new QBoxLayout(QBoxLayout::LeftToRight);
    columns_->setContentsMargins(0, 0, 0, 0);
    columns_->setSpacing(16);
    columns_->addLayout(picture_column);
    columns_->addWidget(bars_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addLayout(columns_, 1);
    clear();
}

void SampleDetail::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const bool room_beside = width() >= large_side + 2 * bars_->minimumSizeHint().width();
    columns_->setDirection(room_beside ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

void SampleDetail::clear() {
    sample_.reset();
    image_.clear();
    waiting_status_.clear();
    plain_picture_ = occlusion_picture_ = saliency_picture_ = QImage();
    occlusion_sentence_.clear();
    saliency_sentence_.clear();
    summary_->setText(tr("Click an image in the gallery to see it here with every class's probability."));
    status_->clear();
    bars_->clear();
    set_overlays_enabled(false);
    overlay_ = Overlay::image;
    show_chosen();
}

QString SampleDetail::class_name(int label) const {
    return label >= 0 && label < class_names_.size() ? class_names_[label] : QString::number(label);
}

void SampleDetail::show_sample(std::size_t sample, std::vector<float> image, int channels, int height, int width,
                               int true_label, std::vector<float> probabilities, const QStringList& class_names) {
    clear();
    const bool shape_fits = (channels == 1 || channels == 3) && height > 0 && width > 0 &&
                            image.size() == static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) *
                                                static_cast<std::size_t>(width);
    const int classes = static_cast<int>(probabilities.size());
    if (!shape_fits || classes == 0 || true_label < 0 || true_label >= classes) {
        // A caller's mismatch, said plainly rather than drawn wrong.
        summary_->setText(tr("Image %1 cannot be shown: %2 values for %3x%4x%5, %6 probabilities, true class %7.")
                              .arg(sample)
                              .arg(image.size())
                              .arg(channels)
                              .arg(height)
                              .arg(width)
                              .arg(probabilities.size())
                              .arg(true_label));
        return;
    }
    sample_ = sample;
    image_ = std::move(image);
    channels_ = channels;
    height_ = height;
    width_ = width;
    class_names_ = class_names;
    scale_ = std::max(1, static_cast<int>(std::lround(static_cast<double>(large_side) / std::max(height, width))));
    plain_picture_ = plain_image(image_, channels, height, width, scale_);

    // The first of equal probabilities, as the evaluation counts a prediction.
    const int predicted =
        static_cast<int>(std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin());
    const float p_true = probabilities[static_cast<std::size_t>(true_label)];
    // -ln of the true class's probability, as session::evaluate_probabilities computes a loss.
    const double loss = -std::log(static_cast<double>(std::max(p_true, std::numeric_limits<float>::min())));
    summary_->setText(tr("true: %1 · predicted: %2 (%3) · loss %4")
                          .arg(class_name(true_label), class_name(predicted),
                               percent_text(probabilities[static_cast<std::size_t>(predicted)]), loss_text(loss)));
    bars_->set_classes(class_names);
    bars_->set_probabilities(std::move(probabilities), true_label);
    waiting_status_ = tr("Computing the occlusion map and the saliency…");
    show_chosen();
}

void SampleDetail::show_insight(std::size_t sample, const session::OcclusionMap& occlusion,
                                const session::InputGradient& saliency) {
    if (!sample_ || *sample_ != sample) return;  // the learner has moved on to another image
    const std::size_t plane = static_cast<std::size_t>(height_) * static_cast<std::size_t>(width_);
    if (occlusion.drops.size() !=
            static_cast<std::size_t>(occlusion.rows) * static_cast<std::size_t>(occlusion.columns) ||
        saliency.values.size() != plane * static_cast<std::size_t>(channels_)) {
        show_insight_failed(sample, tr("the maps do not fit the %1x%2x%3 image (%4 occlusion drops for %5x%6 "
                                       "positions, %7 gradient values)")
                                        .arg(channels_)
                                        .arg(height_)
                                        .arg(width_)
                                        .arg(occlusion.drops.size())
                                        .arg(occlusion.rows)
                                        .arg(occlusion.columns)
                                        .arg(saliency.values.size()));
        return;
    }
    // The saliency's heat per pixel: the gradient summed over the channels. The sum is how much
    // the score moves when the pixel is brightened by the same small amount in every channel (a
    // change of its grey level, what the overlay's grey image shows), and it keeps the gradient's
    // sign, so red and blue mean the same as for one channel. One channel is taken as it is.
    std::vector<float> saliency_heat(saliency.values.begin(),
                                     saliency.values.begin() + static_cast<std::ptrdiff_t>(plane));
    for (int c = 1; c < channels_; ++c)
        for (std::size_t i = 0; i < plane; ++i)
            saliency_heat[i] += saliency.values[static_cast<std::size_t>(c) * plane + i];
    try {
        occlusion_picture_ = picture_image(
            io::heatmap_overlay(channels_, height_, width_, image_, occlusion.pixel_drops(height_, width_), scale_));
        saliency_picture_ =
            picture_image(io::heatmap_overlay(channels_, height_, width_, image_, saliency_heat, scale_));
    } catch (const std::exception& refused) {
        occlusion_picture_ = saliency_picture_ = QImage();
        show_insight_failed(sample, QString::fromStdString(refused.what()));
        return;
    }
    occlusion_sentence_ =
        tr("Occlusion: how much the probability of %1 (%2) drops when a grey %3x%3 patch hides each place — red "
           "where hiding it lowers the answer, blue where hiding it raises it.")
            .arg(class_name(occlusion.label), percent_text(occlusion.probability))
            .arg(occlusion.patch);
    saliency_sentence_ =
        tr("Saliency: how much a tiny change of each pixel would move the score of %1 (its gradient) — red where "
           "brightening the pixel raises it, blue where it lowers it; it measures sensitivity, not importance, "
           "which is why it can disagree with occlusion.")
            .arg(class_name(saliency.label));
    set_overlays_enabled(true);
    waiting_status_.clear();
    show_chosen();
}

void SampleDetail::show_insight_failed(std::size_t sample, const QString& message) {
    if (!sample_ || *sample_ != sample) return;
    occlusion_picture_ = saliency_picture_ = QImage();
    set_overlays_enabled(false);
    waiting_status_ = tr("The occlusion map and the saliency could not be computed: %1").arg(message);
    show_chosen();
}

bool SampleDetail::choose_overlay(Overlay overlay) {
    const bool available = overlay == Overlay::image       ? sample_.has_value()
                           : overlay == Overlay::occlusion ? !occlusion_picture_.isNull()
                                                           : !saliency_picture_.isNull();
    if (!available) {
        show_chosen();  // the checked button goes back to what is shown
        return false;
    }
    overlay_ = overlay;
    show_chosen();
    return true;
}

void SampleDetail::set_overlays_enabled(bool enabled) {
    occlusion_button_->setEnabled(enabled);
    saliency_button_->setEnabled(enabled);
    if (!enabled) overlay_ = Overlay::image;
}

void SampleDetail::show_chosen() {
    QPushButton* const chosen = overlay_ == Overlay::image       ? image_button_
                                : overlay_ == Overlay::occlusion ? occlusion_button_
                                                                 : saliency_button_;
    chosen->setChecked(true);
    const QImage picture = shown_picture();
    picture_->setPixmap(picture.isNull() ? QPixmap() : QPixmap::fromImage(picture));
    // The sentence is as wide as the picture, so it reads as its caption.
    if (!picture.isNull()) {
        sentence_->setFixedWidth(picture.width());
        status_->setFixedWidth(picture.width());
    }
    const QString sentence = overlay_sentence();
    // "Occlusion: how much…": the name before the colon in bold.
    const qsizetype colon = sentence.indexOf(QLatin1Char(':'));
    sentence_->setText(colon < 0 ? sentence.toHtmlEscaped()
                                 : QStringLiteral("<b>%1</b>%2")
                                       .arg(sentence.left(colon).toHtmlEscaped(), sentence.mid(colon).toHtmlEscaped()));
    sentence_->setVisible(!sentence.isEmpty());
    // Under the plain image: what is being computed, what failed, or, once the maps are here, a
    // pointer to them; under an overlay its sentence is enough.
    const bool maps_here = !occlusion_picture_.isNull();
    status_->setText(!waiting_status_.isEmpty() ? waiting_status_
                     : maps_here && overlay_ == Overlay::image
                         ? tr("Choose Occlusion or Saliency to see which places the answer depends on.")
                         : QString());
    status_->setVisible(!status_->text().isEmpty());
    for (QPushButton* button : {image_button_, occlusion_button_, saliency_button_})
        button->setVisible(sample_.has_value());
}

QString SampleDetail::summary_text() const {
    return summary_->text();
}

QString SampleDetail::status_text() const {
    return status_->text();
}

QString SampleDetail::overlay_sentence() const {
    switch (overlay_) {
        case Overlay::occlusion:
            return occlusion_sentence_;
        case Overlay::saliency:
            return saliency_sentence_;
        case Overlay::image:
            break;
    }
    return {};
}

QImage SampleDetail::shown_picture() const {
    switch (overlay_) {
        case Overlay::occlusion:
            return occlusion_picture_;
        case Overlay::saliency:
            return saliency_picture_;
        case Overlay::image:
            break;
    }
    return plain_picture_;
}

bool SampleDetail::export_png(const QString& file, QString* error) const {
    const QImage picture = shown_picture();
    if (picture.isNull()) {
        if (error) *error = tr("No image is shown, so there is nothing to write to %1.").arg(file);
        return false;
    }
    return save_png(picture, file, error);
}

}  // namespace bps::ui
