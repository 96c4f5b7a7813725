#pragma once
// A layer's activations for one image: every channel as a greyscale map, each scaled to its own
// range (its min black, its max white; a constant map mid-grey), as ConvNetJS draws them, with its
// min and max printed under it ("ch 3  0.00 – 2.41"; a constant map "ch 3  all 0.00"), enlarged
// by an integer factor with nearest-neighbour scaling: about 64 px a map (a 7x7 map 63 px, a 28x28
// map 2x), up to twice that where the width leaves room without adding a row. The maps flow to the
// widget's width and scroll vertically. A flat layer (1x1 maps: a Dense layer's units) is one strip of
// cells, one per unit, on the layer's one range, with its values printed when there are at most
// ten. Paints plain values only.
//
// The window shows two side by side to compare images ("insideActivations" and
// "insideActivationsSecond"). The maps live on canvas(), inside a vertical scroll area of this
// widget: map_rect() is in canvas()'s coordinates, and a test grabs canvas().
#include <QImage>
#include <QRect>
#include <QString>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

namespace bps::ui {

class PictureCanvas;
class PictureScrollArea;

struct ActivationSet {
    QString title;  // "Image: test image 17, Pullover"
    QString layer;  // "conv1"
    int channels = 0, height = 0, width = 0;
    std::vector<float> values;  // channels x height x width
    // The share of the layer's outputs that are zero, shown as "42% of ReLU outputs are zero".
    std::optional<double> zero_fraction;
};

class ActivationMaps : public QWidget {
    Q_OBJECT
public:
    explicit ActivationMaps(QWidget* parent = nullptr);  // objectName "insideActivations"

    // Draws `activations`; a set whose values do not match its sizes is refused with a message.
    void set_activations(ActivationSet activations);
    // No maps, `reason` centred in their place.
    void clear(const QString& reason);

    const ActivationSet& activations() const { return activations_; }
    QString reason() const { return reason_; }  // empty while maps are shown
    bool is_flat() const;                       // 1x1 maps: drawn as one strip of cells
    int scale() const;                          // screen pixels per value, across and down
    int columns() const;                        // maps (or cells) per row at the current width

    // The value the pixel (y, x) of `channel`'s map was painted from; NaN outside.
    float shown_value(int channel, int y, int x) const;
    // The range `channel`'s map is scaled to: its own min and max (a flat layer's: the layer's).
    std::pair<float, float> range_of(int channel) const;
    // The grey a value of `channel` is painted in.
    QColor colour_of(int channel, float value) const;
    // Where `channel`'s map (a flat layer: its unit's cell) is painted, in canvas() coordinates.
    QRect map_rect(int channel) const;
    // The text under a map: "ch 3  0.00 – 2.41", "ch 5  all 0.00" for a constant map (a flat
    // layer's cells: the value, for at most ten units).
    QString label_of(int channel) const;
    QWidget* canvas() const;
    // The height the maps need at the width they were last laid out for (a stack of layers gives
    // each exactly that).
    int content_height() const { return layout_.height; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    struct Layout {
        int scale = 1, map_width = 0, map_height = 0;
        int cell_width = 0, cell_height = 0;  // a map and its labels
        int gap = 10, columns = 1;
        QPoint origin;
        int title_y = 0, subtitle_y = 0, note_y = 0;
        int height = 0;
    };

    Layout layout_for(int width) const;
    int relayout(int width);
    void rebuild_images();
    void paint(QPainter& painter) const;
    QString tooltip_at(QPoint position) const;
    QString subtitle() const;
    std::size_t offset(int channel, int y, int x) const;

    ActivationSet activations_;
    QString reason_;
    std::vector<std::pair<float, float>> ranges_;  // per channel (a flat layer: the layer's, each)
    std::vector<QImage> images_;                   // per channel, native size
    Layout layout_;
    PictureCanvas* canvas_;
    PictureScrollArea* scroll_;
};

}  // namespace bps::ui
