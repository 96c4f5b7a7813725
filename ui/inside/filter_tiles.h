#pragma once
// A layer's filters as tiles: what its weights look for. Paints plain values only; the caller
// hands it the weights in the engine's order.
//
// - kernels (any Conv2D): one tile per (filter, input channel), a row per filter and a column per
//   input channel (a single input channel: the filters flow across the width), coloured on one
//   diverging scale for the whole layer, blue negative, near-white zero, red positive, over
//   [-m, m] with m the layer's largest |weight|, so that tiles compare; a colour bar names -m, 0
//   and +m. At most 16 input channels and 64 filters are drawn, and a caption says so.
// - colour_kernels (a first Conv2D on RGB input): one tile per filter, its three channels as red,
//   green and blue, each 0.5 + 0.5 v / m (grey is zero).
// - dense_images (a first Dense layer on image input): each unit's weights as an image of the
//   input's size, diverging as kernels (RGB as colour_kernels for three channels); at most 64.
//
// Tiles are enlarged by an integer factor with nearest-neighbour scaling (every weight a square of
// pixels, a 3x3 kernel at least 24 px wide) and never run past the widget's width. The tiles live
// on canvas(), inside a vertical scroll area of this widget: tile_rect() is in canvas()'s
// coordinates, and a test grabs or clicks canvas().
#include <QColor>
#include <QImage>
#include <QRect>
#include <QString>
#include <QWidget>
#include <vector>

namespace bps::ui {

class PictureCanvas;
class PictureScrollArea;

struct FilterSet {
    QString layer;  // "conv1", "fc1"
    enum class Kind { kernels, colour_kernels, dense_images };
    Kind kind = Kind::kernels;
    int count = 0, channels = 0, height = 0, width = 0;
    // count x channels x height x width, the engine's order: a Conv2D weight out x in x kh x kw; a
    // Dense weight on image input, units x (C*H*W), read as units x C x H x W.
    std::vector<float> values;
};

class FilterTiles : public QWidget {
    Q_OBJECT
public:
    static constexpr int max_channels_shown = 16;
    static constexpr int max_filters_shown = 64;

    explicit FilterTiles(QWidget* parent = nullptr);  // objectName "insideFilters"

    // Draws `filters`; a set whose values do not match its sizes (or colour_kernels without
    // three channels) is refused with a message in its place.
    void set_filters(FilterSet filters);
    // No tiles, `reason` centred in their place ("fc2 has no filters to draw: ...").
    void clear(const QString& reason);

    const FilterSet& filters() const { return filters_; }
    QString reason() const { return reason_; }      // empty while tiles are shown
    float magnitude() const { return magnitude_; }  // m: the layer's largest |value|
    int filters_shown() const;
    int channels_shown() const;  // 1 for tiles that show all three channels as one colour
    QString caption() const;     // "showing 16 of 32 input channels"; empty when all are shown
    int scale() const;           // screen pixels per weight, across and down

    // The value the pixel (y, x) of tile (filter, channel) was painted from; NaN for a tile that
    // is not drawn.
    float shown_value(int filter, int channel, int y, int x) const;
    // The diverging scale of this layer (kernels, and dense images of one channel).
    QColor colour_of(float value) const;
    // The colour of an RGB pixel (colour_kernels, and dense images of three channels).
    QColor colour_of_rgb(float red, float green, float blue) const;
    // Where tile (filter, channel) is painted, in canvas() coordinates; empty for a tile not
    // drawn. A tile that shows all three channels as one colour answers for any channel (and -1).
    QRect tile_rect(int filter, int channel) const;
    // The surface the tiles are painted on (inside this widget's scroll area).
    QWidget* canvas() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // A click on a tile; channel is -1 for a tile that shows all three channels as one colour.
    void tileClicked(int filter, int channel);

private:
    struct Layout {
        bool grid = false;      // a row per filter, a column per input channel
        bool combined = false;  // one RGB tile per filter
        int shown_filters = 0, shown_channels = 0;
        int scale = 1, tile_width = 0, tile_height = 0, gap = 4;
        int columns = 1;                 // tiles per row
        QPoint origin;                   // the first tile's top left
        int title_y = 0, caption_y = 0;  // baselines
        QRect colour_bar;
        int height = 0;
    };

    Layout layout_for(int width) const;
    int relayout(int width);
    void rebuild_images();
    void paint(QPainter& painter) const;
    void paint_header(QPainter& painter) const;
    void paint_colour_bar(QPainter& painter) const;
    QString title() const;
    QString tooltip_at(QPoint position) const;
    void clicked_at(QPoint position);
    // The tile under `position`: {filter, channel}, or {-1, -1}.
    std::pair<int, int> tile_at(QPoint position) const;
    bool combined_colour() const;
    std::size_t offset(int filter, int channel, int y, int x) const;

    FilterSet filters_;
    QString reason_;
    float magnitude_ = 0;
    // One native-size image per drawn tile, (filter, channel) row-major over the drawn ones.
    std::vector<QImage> images_;
    Layout layout_;
    PictureCanvas* canvas_;
    PictureScrollArea* scroll_;
};

}  // namespace bps::ui
