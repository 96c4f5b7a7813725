#pragma once
// The painted surface of the Inside view's pictures (the filters' tiles, the activation maps) and
// the vertical scroll area it lives in. The canvas paints, answers clicks and tooltips through its
// owner's functions, so that the owner keeps one layout (its rectangles) for painting, hit tests
// and tests alike. The scroll area gives the canvas the viewport's width and asks the owner for
// the height at that width whenever the width changes (a window resized, a scroll bar shown), so
// a picture flows to the width it has and scrolls vertically only.
#include <QScrollArea>
#include <QString>
#include <QWidget>
#include <functional>

namespace bps::ui {

class PictureCanvas : public QWidget {
public:
    explicit PictureCanvas(QWidget* parent = nullptr);

    std::function<void(QPainter&)> paint;
    std::function<QString(QPoint)> tooltip_at;  // an empty text shows no tooltip
    std::function<void(QPoint)> clicked_at;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
};

class PictureScrollArea : public QScrollArea {
public:
    // `height_for_width` lays the picture out for a width and returns the height it needs.
    PictureScrollArea(PictureCanvas* canvas, std::function<int(int)> height_for_width, QWidget* parent = nullptr);

    // Lays the picture out again at the viewport's width (after its values changed).
    void relayout();

protected:
    bool viewportEvent(QEvent* event) override;

private:
    PictureCanvas* canvas_;
    std::function<int(int)> height_for_width_;
};

}  // namespace bps::ui
