#pragma once
// One connection on the editor's canvas: a curve with an arrow head from a layer's output port to
// the input port of a layer that reads it. Like the arrows of Qt's diagramscene example it is an
// item of its own that its two nodes move: NodeItem calls update_path whenever it moves. It is
// selectable so that Del (or its context menu) can ask the document to disconnect it; it never
// changes the network itself.
#include <QGraphicsPathItem>
#include <QPolygonF>
#include <QString>

namespace bps::ui {

class NodeItem;

class EdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 2 };

    // Registers itself with both nodes, which must outlive it (NetworkScene removes edges first).
    EdgeItem(NodeItem* from, NodeItem* to);
    ~EdgeItem() override;

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    NodeItem* from_node() const { return from_; }
    NodeItem* to_node() const { return to_; }
    QString from() const;
    QString to() const;

    // Follows the ports of its nodes.
    void update_path();

    // The curve from one port to another, as the edges and the connection being drawn use it.
    static QPainterPath curve(const QPointF& start, const QPointF& end);

private:
    NodeItem* from_;
    NodeItem* to_;
    QPolygonF arrow_head_;
};

}  // namespace bps::ui
