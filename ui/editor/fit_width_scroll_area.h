#pragma once
// A scroll area that scrolls only up and down: its content is always as wide as its viewport,
// and the area asks for at least the content's minimum width (plus the vertical scroll bar), so
// that a dock holding it is never narrower than its fields. A plain QScrollArea with the
// horizontal bar turned off still scrolled sideways to show a focused field that did not fit,
// leaving labels cut to "rate" and "ecay".
#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>

namespace bps::ui {

class FitWidthScrollArea : public QScrollArea {
public:
    explicit FitWidthScrollArea(QWidget* parent = nullptr) : QScrollArea(parent) {
        setWidgetResizable(true);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setFrameShape(QFrame::NoFrame);
    }

    QSize minimumSizeHint() const override {
        QSize hint = QScrollArea::minimumSizeHint();
        if (const QWidget* content = widget()) {
            const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
            hint.setWidth(content->minimumSizeHint().width() + bar + 2 * frameWidth());
        }
        return hint;
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        // The content's minimum changed (a group shown, a longer label): so does the area's.
        if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }

    void scrollContentsBy(int dx, int dy) override {
        // Never sideways: a focused field is brought into view up or down only.
        horizontalScrollBar()->setValue(0);
        QScrollArea::scrollContentsBy(0, dy);
        (void)dx;
    }
};

}  // namespace bps::ui
