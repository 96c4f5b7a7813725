#include "ui/inside/picture_canvas.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace bps::ui {

PictureCanvas::PictureCanvas(QWidget* parent) : QWidget(parent) {
    setAutoFillBackground(true);
}

void PictureCanvas::paintEvent(QPaintEvent*) {
    if (!paint) return;
    QPainter painter(this);
    paint(painter);
}

bool PictureCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltip_at ? tooltip_at(help->pos()) : QString();
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void PictureCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && clicked_at) clicked_at(event->position().toPoint());
    QWidget::mousePressEvent(event);
}

PictureScrollArea::PictureScrollArea(PictureCanvas* canvas, std::function<int(int)> height_for_width, QWidget* parent)
    : QScrollArea(parent), canvas_(canvas), height_for_width_(std::move(height_for_width)) {
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(false);  // the canvas's height is the picture's, its width the viewport's
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setWidget(canvas_);
    verticalScrollBar()->setSingleStep(24);
}

void PictureScrollArea::relayout() {
    const int width = viewport()->width();
    const int height = height_for_width_ ? height_for_width_(width) : 0;
    canvas_->resize(width, std::max(height, viewport()->height()));
    canvas_->update();
}

bool PictureScrollArea::viewportEvent(QEvent* event) {
    // The viewport narrows when the vertical scroll bar appears: the picture flows again.
    if (event->type() == QEvent::Resize) relayout();
    return QScrollArea::viewportEvent(event);
}

}  // namespace bps::ui
