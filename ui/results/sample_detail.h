#pragma once
// The one-image view of the Results tab: one sample shown large (nearest neighbour, so its pixels
// stay visible) with "true: Shirt · predicted: T-shirt/top (87.3%) · loss 0.14" and every class's
// probability as bars; then, once the worker has computed them, two overlays chosen with a row of
// buttons (Image, Occlusion, Saliency): the occlusion map and the gradient saliency drawn over the
// image (io::heatmap_overlay). Each overlay is named and says in one sentence what it measures,
// since learners get confused when the two heatmaps disagree.
//
// It only paints and forwards: the image, the probabilities and the predictor's maps arrive as
// plain values. The maps arrive later than the image and may belong to an image the learner has
// already left: those are ignored.
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <optional>
#include <vector>

#include "engine/session/predictor.h"

class QButtonGroup;
class QBoxLayout;
class QLabel;
class QPushButton;

namespace bps::ui {

class ProbabilityBars;

class SampleDetail : public QWidget {
    Q_OBJECT
public:
    enum class Overlay { image, occlusion, saliency };

    explicit SampleDetail(QWidget* parent = nullptr);

    // `sample`: its index in the split (what show_insight names). `image`: CHW floats in [0, 1],
    // 1 or 3 channels; `probabilities`: one per class. The overlays are off until show_insight.
    // Values that do not fit each other are shown as a message, not drawn.
    void show_sample(std::size_t sample, std::vector<float> image, int channels, int height, int width, int true_label,
                     std::vector<float> probabilities, const QStringList& class_names);
    // The worker's maps for `sample`; ignored when another sample is shown by now.
    void show_insight(std::size_t sample, const session::OcclusionMap& occlusion,
                      const session::InputGradient& saliency);
    // The worker could not compute them: the message is shown, the overlays stay off.
    void show_insight_failed(std::size_t sample, const QString& message);
    // Back to the empty view that invites a click in the gallery.
    void clear();

    // As clicking its button; an overlay that is not available yet is refused (false).
    bool choose_overlay(Overlay overlay);
    Overlay overlay() const { return overlay_; }
    std::optional<std::size_t> sample() const { return sample_; }

    // Saves the large picture with the overlay shown.
    bool export_png(const QString& file, QString* error) const;

    // For tests, and the tab's own buttons.
    QString summary_text() const;
    QString status_text() const;       // "Computing the occlusion map and the saliency…", a failure
    QString overlay_sentence() const;  // what the chosen overlay measures; empty for the image
    QImage shown_picture() const;      // the large picture as shown (null when no sample)
    QPushButton* image_button() const { return image_button_; }
    QPushButton* occlusion_button() const { return occlusion_button_; }
    QPushButton* saliency_button() const { return saliency_button_; }
    ProbabilityBars* probability_bars() const { return bars_; }

protected:
    // Narrow, the bars go under the picture; wide, beside it.
    void resizeEvent(QResizeEvent* event) override;

private:
    void show_chosen();
    void set_overlays_enabled(bool enabled);
    QString class_name(int label) const;

    std::optional<std::size_t> sample_;
    std::vector<float> image_;
    int channels_ = 0, height_ = 0, width_ = 0, scale_ = 1;
    QStringList class_names_;
    Overlay overlay_ = Overlay::image;
    QImage plain_picture_, occlusion_picture_, saliency_picture_;
    QString occlusion_sentence_, saliency_sentence_;
    QString waiting_status_;  // computing the maps, or why they could not be

    QLabel* summary_ = nullptr;
    QLabel* picture_ = nullptr;
    QLabel* sentence_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* image_button_ = nullptr;
    QPushButton* occlusion_button_ = nullptr;
    QPushButton* saliency_button_ = nullptr;
    QButtonGroup* buttons_ = nullptr;
    ProbabilityBars* bars_ = nullptr;
    QBoxLayout* columns_ = nullptr;  // the picture and the bars
};

}  // namespace bps::ui
