#include "ui/editor/network_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/editor/colour_blend.h"
#include "ui/editor/network_scene.h"

namespace bps::ui {

namespace {

constexpr double fit_margin = 40;  // scene units around the nodes when fitting
// One notch of a mouse wheel (120 eighths of a degree) zooms by about 15%.
constexpr double zoom_per_eighth_degree = 1.00117;

}  // namespace

NetworkView::NetworkView(NetworkScene* scene, QWidget* parent) : QGraphicsView(scene, parent), scene_(scene) {
    setObjectName("networkView");
    setRenderHint(QPainter::Antialiasing);
    setRenderHint(QPainter::TextAntialiasing);
    setDragMode(RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    // Zooming keeps the point under the mouse still (zoom_by); resizing keeps the centre.
    setTransformationAnchor(NoAnchor);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    // Palette drops: QGraphicsView hands drag and drop events on its viewport to the scene.
    setAcceptDrops(true);
    viewport()->setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
}

double NetworkView::zoom() const {
    return transform().m11();
}

void NetworkView::zoom_by(double factor, const QPointF& view_pos) {
    const double target = std::clamp(zoom() * factor, min_zoom, max_zoom);
    if (std::abs(target - zoom()) < 1e-9) return;
    const QPointF scene_pos = mapToScene(view_pos.toPoint());
    const double applied = target / zoom();
    scale(applied, applied);
    // Scroll so that scene_pos is back under view_pos.
    const QPointF drift = mapFromScene(scene_pos) - view_pos;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + static_cast<int>(std::lround(drift.x())));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + static_cast<int>(std::lround(drift.y())));
    emit zoomChanged(zoom());
}

void NetworkView::zoom_in() {
    zoom_by(zoom_step, QRectF(viewport()->rect()).center());
}

void NetworkView::zoom_out() {
    zoom_by(1 / zoom_step, QRectF(viewport()->rect()).center());
}

void NetworkView::reset_zoom() {
    zoom_by(1 / zoom(), QRectF(viewport()->rect()).center());
}

void NetworkView::fit_all() {
    if (!isVisible()) {  // the viewport has no real size yet
        fit_when_shown_ = true;
        return;
    }
    fit_when_shown_ = false;
    QRectF nodes;
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == NodeItem::Type) nodes = nodes.united(item->sceneBoundingRect());
    if (nodes.isNull()) return;
    nodes.adjust(-fit_margin, -fit_margin, fit_margin, fit_margin);
    fitInView(nodes, Qt::KeepAspectRatio);
    const double fitted = std::clamp(zoom(), min_zoom, 1.0);
    if (fitted != zoom()) setTransform(QTransform::fromScale(fitted, fitted));
    centerOn(nodes.center());
    emit zoomChanged(zoom());
}

void NetworkView::show_network() {
    if (!isVisible()) {
        show_network_when_shown_ = true;
        return;
    }
    show_network_when_shown_ = false;
    fit_all();
    if (zoom() >= readable_zoom) return;
    // Too long to read whole (a deep chain is wider than any screen): its start, readable, and
    // the scroll bar and F for the rest.
    QRectF nodes;
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == NodeItem::Type) nodes = nodes.united(item->sceneBoundingRect());
    setTransform(QTransform::fromScale(readable_zoom, readable_zoom));
    const double half_width = viewport()->width() / (2 * readable_zoom);
    centerOn(nodes.left() - fit_margin + half_width, nodes.center().y());
    emit zoomChanged(zoom());
}

void NetworkView::show_layer(const QString& name) {
    if (const NodeItem* node = scene_->node_item(name)) ensureVisible(node, 40, 40);
}

void NetworkView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (show_network_when_shown_ && isVisible()) show_network();
    if (fit_when_shown_ && isVisible()) fit_all();
}

void NetworkView::wheelEvent(QWheelEvent* event) {
    const int eighths = event->angleDelta().y();
    if (eighths == 0) {  // a sideways scroll pans, as a touchpad's does
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoom_by(std::pow(zoom_per_eighth_degree, eighths), event->position());
    event->accept();
}

void NetworkView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::MiddleButton) {
        panning_ = true;
        pan_from_ = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void NetworkView::mouseMoveEvent(QMouseEvent* event) {
    if (panning_) {
        const QPoint now = event->position().toPoint();
        const QPoint delta = now - pan_from_;
        pan_from_ = now;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void NetworkView::mouseReleaseEvent(QMouseEvent* event) {
    if (panning_ && event->button() == Qt::MiddleButton) {
        panning_ = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void NetworkView::keyPressEvent(QKeyEvent* event) {
    // The window's View menu may own these shortcuts too; then its actions see the keys first.
    if (event->matches(QKeySequence::ZoomIn) ||
        (event->key() == Qt::Key_Plus && (event->modifiers() & Qt::ControlModifier)))
        zoom_in();
    else if (event->matches(QKeySequence::ZoomOut))
        zoom_out();
    else if (event->key() == Qt::Key_0 && (event->modifiers() & Qt::ControlModifier))
        reset_zoom();
    else if (event->key() == Qt::Key_F && event->modifiers() == Qt::NoModifier)
        fit_all();
    else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

void NetworkView::drawBackground(QPainter* painter, const QRectF& rect) {
    const QPalette colours = scene_->palette();  // as the nodes are painted, so both follow dark mode
    const QColor base = colours.color(QPalette::Base);
    const QColor text = colours.color(QPalette::Text);
    painter->fillRect(rect, base);
    // Lines closer than 6 pixels on screen are noise: draw the fine grid only when zoomed in enough.
    const double spacing = grid_spacing * zoom() >= 6 ? grid_spacing : grid_spacing * 5;
    const double first_x = std::floor(rect.left() / spacing) * spacing;
    const double first_y = std::floor(rect.top() / spacing) * spacing;
    std::vector<QLineF> fine, strong;
    const auto is_strong = [](double at) { return std::fmod(std::abs(std::round(at / grid_spacing)), 5.0) == 0; };
    for (double x = first_x; x <= rect.right(); x += spacing)
        (is_strong(x) ? strong : fine).emplace_back(x, rect.top(), x, rect.bottom());
    for (double y = first_y; y <= rect.bottom(); y += spacing)
        (is_strong(y) ? strong : fine).emplace_back(rect.left(), y, rect.right(), y);
    QPen pen(blend(base, text, 0.06), 1);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->drawLines(fine.data(), static_cast<int>(fine.size()));
    pen.setColor(blend(base, text, 0.12));
    painter->setPen(pen);
    painter->drawLines(strong.data(), static_cast<int>(strong.size()));
}

}  // namespace bps::ui
