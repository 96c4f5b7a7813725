#pragma once
// One layer on the editor's canvas: a rounded box that shows what the graph report knows about
// the layer (its type, name, output shape and parameter count) and, with a red outline and a
// tooltip, what is wrong with it. It is only a picture of the document: NetworkScene creates,
// updates and removes it by layer name, and turns its moves and port drags into the document's
// edits. Ports: one input port on the left (none for an Input layer; Add and Concatenate take
// several edges into their one port, spread along it) and one output port on the right.
#include <QColor>
#include <QGraphicsItem>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <string_view>
#include <vector>

#include "engine/model/graph_report.h"
#include "engine/model/network_spec.h"

namespace bps::ui {

class EdgeItem;

// The colour that marks a palette group ("Convolution") on the canvas and in the palette, made
// to stand out on `palette`'s base colour in light and dark mode alike.
QColor group_accent(std::string_view group, const QPalette& palette);
// The accent of the palette group that places layers of `type`.
QColor layer_accent(model::LayerType type, const QPalette& palette);
// The outline of a node with a problem (and of a refused connection being drawn).
QColor problem_colour(const QPalette& palette);

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    enum class Port { none, input, output };

    static constexpr double width = 120;
    static constexpr double height = 78;
    static constexpr double port_radius = 5;

    explicit NodeItem(const QString& name);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    // Shows `layer` as the graph report sees it; `report` is null when the report has no node for it.
    void set_layer(const model::LayerSpec& layer, const model::NodeReport* report);

    const QString& name() const { return name_; }
    // A rename keeps the item (and so its selection).
    void set_name(const QString& name);
    model::LayerType layer_type() const { return layer_type_; }
    // The lines the box shows, top to bottom: type, name, output shape, parameters ("1,234 params").
    QString type_text() const { return type_text_; }
    QString shape_text() const { return shape_text_; }
    QString params_text() const { return params_text_; }
    // The node's own problems (the tooltip); empty when it has none.
    const QStringList& problems() const { return problems_; }
    bool shows_problem() const { return !problems_.isEmpty(); }
    // The colour of the outline as painted now (red with a problem, the highlight when selected).
    QColor outline_colour() const;

    bool has_input_port() const { return layer_type_ != model::LayerType::input; }
    bool takes_several_inputs() const;
    // Ports in scene coordinates. The input anchor of an edge from `from` is spread along the port
    // for Add and Concatenate, in the order of the layer's inputs.
    QPointF output_port_pos() const;
    QPointF input_port_pos() const;
    QPointF input_anchor(const QString& from) const;
    // Which port (if any) lies within grab distance of `scene_pos`.
    Port port_at(const QPointF& scene_pos) const;
    // Marks the input port that a connection being drawn would end at.
    void set_port_highlight(Port port);

    // The edges that must follow this node when it moves.
    void add_edge(EdgeItem* edge);
    void remove_edge(EdgeItem* edge);

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
    // Over a port the cursor becomes a cross: a drag from there draws a connection, not a move.
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QRectF body() const { return QRectF(0, 0, width, height); }
    QRectF input_port_rect() const;
    QRectF output_port_rect() const;
    QPalette palette() const;

    QString name_;
    model::LayerType layer_type_ = model::LayerType::dense;
    QStringList inputs_;
    QString type_text_;
    QString shape_text_;
    QString params_text_;
    QStringList problems_;
    Port highlighted_ = Port::none;
    std::vector<EdgeItem*> edges_;
};

}  // namespace bps::ui
