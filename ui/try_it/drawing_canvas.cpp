#include "ui/try_it/drawing_canvas.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPen>
#include <algorithm>
#include <cmath>

namespace bps::ui {

namespace {

// MNIST fitted each digit into a 20x20 box centred in its 28x28 image: the guide's margin is
// 4/28 of the side on every edge.
constexpr double guide_margin = DrawingCanvas::logical_side * 4.0 / 28.0;

}  // namespace

DrawingCanvas::DrawingCanvas(QWidget* parent) : QWidget(parent) {
    setObjectName("drawingCanvas");
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::CrossCursor);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setToolTip(tr("Draw with the mouse or a pen. The dashed box is where MNIST's digits were fitted."));
}

void DrawingCanvas::set_pen_width(int width) {
    pen_width_ = std::max(1, width);
}

void DrawingCanvas::clear() {
    strokes_.clear();
    drawing_.reset();
    finished_ = {};
    update();
    emit drawingChanged();
}

void DrawingCanvas::undo_stroke() {
    if (strokes_.empty()) return;
    strokes_.pop_back();
    finished_ = {};
    update();
    emit drawingChanged();
}

QImage DrawingCanvas::ink(int side) const {
    side = std::max(1, side);
    // Painted in RGB and converted: white and black become exactly 255 and 0, and an anti-aliased
    // edge's grey (equal red, green and blue) becomes that same grey.
    QImage image(side, side, QImage::Format_RGB32);
    image.fill(Qt::black);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(side / double(logical_side), side / double(logical_side));
        for (const Stroke& stroke : strokes_) paint_stroke(painter, stroke);
    }
    return image.convertToFormat(QImage::Format_Grayscale8);
}

QRectF DrawingCanvas::drawing_rect() const {
    const int side = std::max(1, std::min(width(), height()));
    return QRectF((width() - side) / 2, (height() - side) / 2, side, side);
}

QPointF DrawingCanvas::to_logical(const QPointF& widget_point) const {
    const QRectF square = drawing_rect();
    return (widget_point - square.topLeft()) * (logical_side / square.width());
}

bool DrawingCanvas::event(QEvent* event) {
    // The window's Edit > Undo (the network editor's) also listens to Ctrl+Z: while the canvas has
    // the focus, the key is the canvas's, even with nothing to undo here, so that it never undoes
    // an edit of a network the learner does not see.
    if (event->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(event)->matches(QKeySequence::Undo)) {
        event->accept();
        return true;
    }
    return QWidget::event(event);
}

void DrawingCanvas::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::Undo)) {
        undo_stroke();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

// The focus frame says where Ctrl+Z goes.
void DrawingCanvas::focusInEvent(QFocusEvent* event) {
    update();
    QWidget::focusInEvent(event);
}

void DrawingCanvas::focusOutEvent(QFocusEvent* event) {
    update();
    QWidget::focusOutEvent(event);
}

void DrawingCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !drawing_rect().contains(event->position())) {
        QWidget::mousePressEvent(event);
        return;
    }
    const QPointF point = to_logical(event->position());
    drawing_ = Stroke{QPolygonF{point}, pen_width_};
    update_around(point, point);
    event->accept();
}

void DrawingCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (!drawing_ || !(event->buttons() & Qt::LeftButton)) {
        QWidget::mouseMoveEvent(event);
        return;
    }
    const QPointF point = to_logical(event->position());
    const QPointF previous = drawing_->points.back();
    if (point == previous) return;
    drawing_->points.append(point);
    update_around(previous, point);
    event->accept();
}

void DrawingCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (!drawing_ || event->button() != Qt::LeftButton) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    const QPointF point = to_logical(event->position());
    if (point != drawing_->points.back()) drawing_->points.append(point);
    strokes_.push_back(std::move(*drawing_));
    drawing_.reset();
    finished_ = {};
    update();
    event->accept();
    emit drawingChanged();
}

void DrawingCanvas::paint_stroke(QPainter& painter, const Stroke& stroke) {
    if (stroke.points.size() == 1) {
        // A tap: a round dot as wide as the pen.
        painter.setPen(Qt::NoPen);
        painter.setBrush(Qt::white);
        const double radius = stroke.pen_width / 2.0;
        painter.drawEllipse(stroke.points.front(), radius, radius);
        return;
    }
    painter.setPen(QPen(Qt::white, stroke.pen_width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.setBrush(Qt::NoBrush);
    painter.drawPolyline(stroke.points);
}

void DrawingCanvas::paint_finished_strokes() {
    const QRectF square = drawing_rect();
    const qreal ratio = devicePixelRatioF();
    const int pixels = std::max(1, int(std::lround(square.width() * ratio)));
    finished_ = QPixmap(pixels, pixels);
    finished_.setDevicePixelRatio(ratio);
    finished_.fill(Qt::black);
    QPainter painter(&finished_);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(square.width() / logical_side, square.width() / logical_side);
    for (const Stroke& stroke : strokes_) paint_stroke(painter, stroke);
}

void DrawingCanvas::update_around(const QPointF& from, const QPointF& to) {
    const QRectF square = drawing_rect();
    const double scale = square.width() / logical_side;
    const double reach = (drawing_ ? drawing_->pen_width : pen_width_) * scale / 2.0 + 2.0;
    const QRectF segment = QRectF(from, to).normalized();
    const QRectF shown(square.topLeft() + segment.topLeft() * scale, segment.size() * scale);
    update(shown.adjusted(-reach, -reach, reach, reach).toAlignedRect());
}

void DrawingCanvas::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    painter.setClipRegion(event->region());
    const QRectF square = drawing_rect();
    // Beside the square (a widget wider than tall, or taller than wide) the page behind shows.
    if (finished_.isNull()) paint_finished_strokes();
    painter.drawPixmap(square.topLeft(), finished_);

    painter.save();
    painter.translate(square.topLeft());
    painter.scale(square.width() / logical_side, square.width() / logical_side);
    painter.setRenderHint(QPainter::Antialiasing);
    if (drawing_) paint_stroke(painter, *drawing_);
    // The guide: faint, dashed, one device pixel wide whatever the scale.
    QPen guide(QColor(255, 255, 255, 90), 0, Qt::DashLine);
    guide.setCosmetic(true);
    painter.setPen(guide);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(
        QRectF(guide_margin, guide_margin, logical_side - 2 * guide_margin, logical_side - 2 * guide_margin));
    painter.restore();

    if (hasFocus()) {
        QPen focus(palette().highlight().color(), 2);
        painter.setPen(focus);
        painter.drawRect(square.adjusted(1, 1, -1, -1));
    }
}

void DrawingCanvas::resizeEvent(QResizeEvent* event) {
    finished_ = {};
    QWidget::resizeEvent(event);
}

}  // namespace bps::ui
