#pragma once
// A square sheet to draw a digit on with the mouse or a pen, white ink on black as MNIST's digits
// are. Whatever the widget's size, the drawing lives in a logical 280x280 square (ten times
// MNIST's 28x28), kept square and centred, so a stroke means the same whether the window is
// small or large. Strokes are kept as a list, one per press..release, so Undo stroke removes
// exactly the last one.
//
// A dashed box marks MNIST's 20x20 box inside its 28x28 image, where the digits were fitted,
// so learners know where to draw; it is a guide only, never part of ink().
//
// drawingChanged is emitted when the pen lifts, after clear() and after undo_stroke(), never
// while the pen moves: the window predicts on each, and a prediction per mouse move would flood
// the worker.
#include <QImage>
#include <QPixmap>
#include <QPolygonF>
#include <QWidget>
#include <optional>
#include <vector>

namespace bps::ui {

class DrawingCanvas : public QWidget {
    Q_OBJECT
public:
    static constexpr int logical_side = 280;  // the drawing's own resolution, whatever is shown
    static constexpr int default_pen_width = 18;

    explicit DrawingCanvas(QWidget* parent = nullptr);

    // In logical pixels; applies to the strokes drawn from now on. At least 1.
    void set_pen_width(int width);
    int pen_width() const { return pen_width_; }

    void clear();
    void undo_stroke();  // does nothing when there is no stroke
    bool is_empty() const { return strokes_.empty(); }
    int stroke_count() const { return static_cast<int>(strokes_.size()); }

    // The drawing at side x side pixels: Format_Grayscale8, 0 where there is no ink, 255 where
    // there is, anti-aliased edges between. Without the guide.
    QImage ink(int side = logical_side) const;

    // Where the logical square is shown in the widget, and a widget point in logical coordinates.
    QRectF drawing_rect() const;
    QPointF to_logical(const QPointF& widget_point) const;

    QSize sizeHint() const override { return {320, 320}; }
    QSize minimumSizeHint() const override { return {140, 140}; }

signals:
    void drawingChanged();

protected:
    bool event(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Stroke {
        QPolygonF points;  // logical coordinates
        int pen_width = default_pen_width;
    };
    static void paint_stroke(QPainter& painter, const Stroke& stroke);
    void paint_finished_strokes();  // into finished_, at the widget's size
    void update_around(const QPointF& from, const QPointF& to);

    std::vector<Stroke> strokes_;
    std::optional<Stroke> drawing_;  // the stroke under the pen, not yet in strokes_
    int pen_width_ = default_pen_width;
    // The finished strokes as shown, so a mouse move repaints only the new segment over it
    // instead of every stroke again; null when it must be painted anew.
    QPixmap finished_;
};

}  // namespace bps::ui
