#include "ui/editor/node_item.h"

#include <QApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

#include "engine/base/number_text.h"
#include "engine/project/network_edits.h"
#include "ui/editor/colour_blend.h"
#include "ui/editor/edge_item.h"

namespace bps::ui {

namespace {

constexpr double corner_radius = 6;
constexpr double header_height = 20;
constexpr double text_margin = 8;
// A port is easier to hit than to see: the grab distance is larger than the drawn circle.
constexpr double port_grab_distance = 8;
// Add and Concatenate draw their one input port as a bar along which their edges arrive.
constexpr double merge_port_height = 44;

bool is_dark(const QPalette& palette) {
    return palette.color(QPalette::Base).lightness() < 128;
}

QPen cosmetic_pen(const QColor& colour, double width) {
    QPen pen(colour, width);
    pen.setCosmetic(true);  // the same thickness on a high-DPI screen and at every zoom
    return pen;
}

QFont sized_font(int pixels, bool bold) {
    QFont font = QApplication::font();
    font.setPixelSize(pixels);  // the box has a fixed size in scene units, so the text must too
    font.setBold(bold);
    return font;
}

}  // namespace

QColor group_accent(std::string_view group, const QPalette& palette) {
    // One hue per palette group, in the palette's order; lighter on a dark base so it stands out.
    int hue = -1;
    if (group == "Input") hue = 190;
    if (group == "Core") hue = 215;
    if (group == "Convolution") hue = 265;
    if (group == "Pooling") hue = 140;
    if (group == "Normalisation") hue = 30;
    if (group == "Activation") hue = 50;
    if (group == "Merge") hue = 325;
    const bool dark = is_dark(palette);
    if (hue < 0) return palette.color(QPalette::Mid);
    return QColor::fromHsl(hue, dark ? 150 : 170, dark ? 150 : 105);
}

QColor layer_accent(model::LayerType type, const QPalette& palette) {
    for (const project::PaletteEntry& entry : project::palette())
        if (entry.layer.type == type) return group_accent(entry.group, palette);
    return group_accent({}, palette);
}

QColor problem_colour(const QPalette& palette) {
    return is_dark(palette) ? QColor(255, 95, 86) : QColor(205, 30, 30);
}

NodeItem::NodeItem(const QString& name) : name_(name) {
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(true);
    setZValue(1);  // above the edges, which end under the ports
}

QRectF NodeItem::boundingRect() const {
    const double margin = port_radius + 4;  // the ports and the selection halo stick out of the box
    return body().adjusted(-margin, -margin, margin, margin);
}

QPainterPath NodeItem::shape() const {
    QPainterPath path;
    path.addRoundedRect(body(), corner_radius, corner_radius);
    path.addRect(output_port_rect());
    if (has_input_port()) path.addRect(input_port_rect());
    return path;
}

QPalette NodeItem::palette() const {
    return scene() ? scene()->palette() : QApplication::palette();
}

QRectF NodeItem::input_port_rect() const {
    const double half = takes_several_inputs() ? merge_port_height / 2 : port_radius;
    return QRectF(-port_radius, height / 2 - half, 2 * port_radius, 2 * half);
}

QRectF NodeItem::output_port_rect() const {
    return QRectF(width - port_radius, height / 2 - port_radius, 2 * port_radius, 2 * port_radius);
}

bool NodeItem::takes_several_inputs() const {
    return project::takes_several_inputs(layer_type_);
}

QPointF NodeItem::output_port_pos() const {
    return mapToScene(QPointF(width, height / 2));
}

QPointF NodeItem::input_port_pos() const {
    return mapToScene(QPointF(0, height / 2));
}

QPointF NodeItem::input_anchor(const QString& from) const {
    const auto index = inputs_.indexOf(from);
    if (!takes_several_inputs() || inputs_.size() < 2 || index < 0) return input_port_pos();
    const double spacing =
        std::min(12.0, (merge_port_height - 2 * port_radius) / static_cast<double>(inputs_.size() - 1));
    const double offset = (static_cast<double>(index) - static_cast<double>(inputs_.size() - 1) / 2) * spacing;
    return mapToScene(QPointF(0, height / 2 + offset));
}

NodeItem::Port NodeItem::port_at(const QPointF& scene_pos) const {
    const QPointF at = mapFromScene(scene_pos);
    const auto near = [&](const QRectF& port) {
        return port
            .adjusted(-port_grab_distance + port_radius, -port_grab_distance + port_radius,
                      port_grab_distance - port_radius, port_grab_distance - port_radius)
            .contains(at);
    };
    if (near(output_port_rect())) return Port::output;
    if (has_input_port() && near(input_port_rect())) return Port::input;
    return Port::none;
}

void NodeItem::set_port_highlight(Port port) {
    if (port == highlighted_) return;
    highlighted_ = port;
    update();
}

void NodeItem::set_name(const QString& name) {
    name_ = name;
    update();
}

void NodeItem::set_layer(const model::LayerSpec& layer, const model::NodeReport* report) {
    QStringList inputs;
    for (const std::string& input : layer.inputs) inputs << QString::fromStdString(input);
    QStringList problems;
    if (report)
        for (const std::string& problem : report->problems) problems << QString::fromStdString(problem);
    const QString shape = report ? QString::fromStdString(report->shape_text()) : QString();
    // "1,234 params": the grouping learners know from Keras's summary and `backprop summary`.
    const QString params = report ? QString::fromStdString(session::format_thousands(report->parameters)) +
                                        (report->parameters == 1 ? " param" : " params")
                                  : QString();
    // The scene calls this for every node after every edit (each step of a drag too): repaint
    // only what changed.
    if (layer.type == layer_type_ && inputs == inputs_ && problems == problems_ && shape == shape_text_ &&
        params == params_text_ && !type_text_.isEmpty())
        return;
    if (project::takes_several_inputs(layer.type) != takes_several_inputs())
        prepareGeometryChange();  // the input port's size follows the type
    layer_type_ = layer.type;
    inputs_ = inputs;
    type_text_ = QString::fromUtf8(model::layer_type_name(layer.type));
    shape_text_ = shape;
    params_text_ = params;
    problems_ = problems;
    setToolTip(problems_.join('\n'));
    for (EdgeItem* edge : edges_) edge->update_path();  // Add and Concatenate spread their inputs
    update();
}

QColor NodeItem::outline_colour() const {
    const QPalette colours = palette();
    if (shows_problem()) return problem_colour(colours);
    if (isSelected()) return colours.color(QPalette::Highlight);
    return blend(colours.color(QPalette::Base), colours.color(QPalette::Text), 0.45);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    Q_UNUSED(option);
    Q_UNUSED(widget);
    const QPalette colours = palette();
    const QColor base = colours.color(QPalette::Base);
    const QColor text = colours.color(QPalette::Text);
    const QColor accent = layer_accent(layer_type_, colours);
    painter->setRenderHint(QPainter::Antialiasing);

    if (isSelected()) {  // a halo, so that a selected node with a problem keeps its red outline
        painter->setPen(cosmetic_pen(colours.color(QPalette::Highlight), 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(body().adjusted(-3, -3, 3, 3), corner_radius + 3, corner_radius + 3);
    }

    QPainterPath outline;
    outline.addRoundedRect(body(), corner_radius, corner_radius);
    // On a dark canvas a node is lifted a shade above it; on a light one it is the paper.
    painter->fillPath(outline, is_dark(colours) ? blend(base, text, 0.07) : base);
    QPainterPath header;
    header.addRect(QRectF(0, 0, width, header_height));
    painter->fillPath(outline.intersected(header), blend(base, accent, 0.35));
    painter->setPen(cosmetic_pen(outline_colour(), shows_problem() || isSelected() ? 2 : 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(outline);

    const double text_width = width - 2 * text_margin;
    const auto draw_line = [&](const QString& line, const QFont& font, const QColor& colour, double top,
                               double line_height) {
        painter->setFont(font);
        painter->setPen(colour);
        const QString elided = QFontMetricsF(font).elidedText(line, Qt::ElideRight, text_width);
        painter->drawText(QRectF(text_margin, top, text_width, line_height), Qt::AlignLeft | Qt::AlignVCenter, elided);
    };
    draw_line(type_text_, sized_font(11, true), text, 0, header_height);
    draw_line(name_, sized_font(13, true), text, header_height + 2, 18);
    const QColor quiet = blend(base, text, 0.7);
    draw_line(shape_text_, sized_font(11, false),
              shows_problem() && shape_text_.startsWith("unknown") ? problem_colour(colours) : quiet,
              header_height + 20, 16);
    draw_line(params_text_, sized_font(11, false), quiet, header_height + 36, 16);

    const auto draw_port = [&](const QRectF& port, bool highlighted) {
        painter->setPen(cosmetic_pen(highlighted ? colours.color(QPalette::Highlight) : text, highlighted ? 2 : 1));
        painter->setBrush(highlighted ? colours.color(QPalette::Highlight) : accent);
        painter->drawRoundedRect(port, port_radius, port_radius);
    };
    if (has_input_port()) draw_port(input_port_rect(), highlighted_ == Port::input);
    draw_port(output_port_rect(), highlighted_ == Port::output);
}

void NodeItem::add_edge(EdgeItem* edge) {
    edges_.push_back(edge);
}

void NodeItem::remove_edge(EdgeItem* edge) {
    std::erase(edges_, edge);
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
    if (change == ItemPositionHasChanged)
        for (EdgeItem* edge : edges_) edge->update_path();
    return QGraphicsItem::itemChange(change, value);
}

void NodeItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
    if (port_at(event->scenePos()) == Port::none)
        unsetCursor();
    else
        setCursor(Qt::CrossCursor);
    QGraphicsItem::hoverMoveEvent(event);
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event) {
    unsetCursor();
    QGraphicsItem::hoverLeaveEvent(event);
}

}  // namespace bps::ui
