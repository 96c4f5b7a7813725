#include "ui/editor/edge_item.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPen>
#include <algorithm>
#include <cmath>

#include "ui/editor/node_item.h"

namespace bps::ui {

namespace {

constexpr double arrow_length = 9;
constexpr double arrow_half_width = 4.5;
constexpr double grab_width = 10;  // a thin curve is hard to click: this is its clickable width

}  // namespace

EdgeItem::EdgeItem(NodeItem* from, NodeItem* to) : from_(from), to_(to) {
    setFlag(ItemIsSelectable);
    setZValue(0);  // under the nodes, so that the ends tuck under the ports
    from_->add_edge(this);
    to_->add_edge(this);
    update_path();
}

EdgeItem::~EdgeItem() {
    from_->remove_edge(this);
    to_->remove_edge(this);
}

QString EdgeItem::from() const {
    return from_->name();
}

QString EdgeItem::to() const {
    return to_->name();
}

QPainterPath EdgeItem::curve(const QPointF& start, const QPointF& end) {
    // Horizontal tangents at both ports: the network reads left to right, and a backwards edge
    // loops round instead of cutting through its nodes.
    const double pull = std::max(40.0, std::abs(end.x() - start.x()) / 2);
    QPainterPath path(start);
    path.cubicTo(start + QPointF(pull, 0), end - QPointF(pull, 0), end);
    return path;
}

void EdgeItem::update_path() {
    const QPointF start = from_->output_port_pos() + QPointF(NodeItem::port_radius, 0);
    const QPointF tip = to_->input_anchor(from_->name()) - QPointF(NodeItem::port_radius, 0);
    // The curve ends where the arrow head starts; the head points along the curve's last tangent,
    // which is horizontal.
    const QPointF head_base = tip - QPointF(arrow_length, 0);
    prepareGeometryChange();
    setPath(curve(start, head_base));
    arrow_head_ = QPolygonF({tip, head_base + QPointF(0, -arrow_half_width), head_base + QPointF(0, arrow_half_width)});
}

QRectF EdgeItem::boundingRect() const {
    return path()
        .boundingRect()
        .united(arrow_head_.boundingRect())
        .adjusted(-grab_width, -grab_width, grab_width, grab_width);
}

QPainterPath EdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(grab_width);
    QPainterPath area = stroker.createStroke(path());
    area.addPolygon(arrow_head_);
    return area;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    Q_UNUSED(option);
    Q_UNUSED(widget);
    const QPalette colours = scene() ? scene()->palette() : QApplication::palette();
    QColor colour = colours.color(QPalette::Text);
    if (!isSelected()) colour.setAlphaF(0.6f);
    if (isSelected()) colour = colours.color(QPalette::Highlight);
    QPen pen(colour, isSelected() ? 2.5 : 1.5);
    pen.setCosmetic(true);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    painter->setBrush(colour);
    painter->drawPolygon(arrow_head_);
}

}  // namespace bps::ui
