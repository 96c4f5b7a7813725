#include "ui/results/confusion_matrix_view.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <array>
#include <cmath>

#include "engine/base/number_text.h"
#include "engine/session/results_tables.h"
#include "ui/results/results_export.h"

namespace bps::ui {

namespace {

QString thousands(std::size_t value) {
    return QString::fromStdString(session::format_thousands(static_cast<std::uint64_t>(value)));
}

// ColorBrewer's sequential "Blues", from white: equal steps look equally far apart, and every step
// keeps its order in grey, so the scale still reads when printed.
struct ColourStop {
    double at;
    QColor colour;
};
const std::array<ColourStop, 5>& blues() {
    static const std::array<ColourStop, 5> stops{{{0.0, QColor(255, 255, 255)},
                                                  {0.25, QColor(198, 219, 239)},
                                                  {0.5, QColor(107, 174, 214)},
                                                  {0.75, QColor(33, 113, 181)},
                                                  {1.0, QColor(8, 48, 107)}}};
    return stops;
}

// Relative luminance (WCAG): dark text on light cells, white text on dark ones.
double luminance(const QColor& colour) {
    const auto linear = [](double channel) {
        return channel <= 0.03928 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF());
}

constexpr double matrix_margin = 8;
constexpr double largest_cell = 110;  // two classes on a big screen: cells, not posters
constexpr double smallest_cell_font = 6;
constexpr double smallest_label_font = 7;

}  // namespace

// Where everything goes for one size: computed by one function for painting, hit-testing and the
// exported picture, so what is clicked is what was drawn.
struct ConfusionMatrixView::Layout {
    QFont label_font, cell_font, bold_font, totals_font;
    bool cell_text_fits = true;
    bool column_totals_fit = true;
    bool staggered_totals = false;  // every other column total on a second line
    bool rotated_column_names = false;
    double line = 0;           // a line of label text
    double left = 0, top = 0;  // the grid's top-left corner
    double cell = 0;           // a square cell's side
    double names_width = 0, column_names_height = 0, totals_width = 0, totals_height = 0;
    double true_header_width = 0, predicted_header_height = 0, legend_height = 0, legend_gap = 0;
    int classes = 0;

    int edge_x(int column) const { return static_cast<int>(std::lround(left + column * cell)); }
    int edge_y(int row) const { return static_cast<int>(std::lround(top + row * cell)); }
    QRect cell_rect(int row, int column) const {
        return QRect(QPoint(edge_x(column), edge_y(row)), QPoint(edge_x(column + 1) - 1, edge_y(row + 1) - 1));
    }
    QRect grid() const { return QRect(QPoint(edge_x(0), edge_y(0)), QPoint(edge_x(classes) - 1, edge_y(classes) - 1)); }
    QRect row_name_rect(int row) const {
        return QRect(QPoint(static_cast<int>(std::lround(left - names_width)), edge_y(row)),
                     QPoint(edge_x(0) - 1, edge_y(row + 1) - 1));
    }
};

ConfusionMatrixView::ConfusionMatrixView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setFocusPolicy(Qt::StrongFocus);
}

ConfusionMatrixView::~ConfusionMatrixView() = default;

void ConfusionMatrixView::set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names) {
    matrix_ = matrix;
    names_ = class_names_for(class_names, matrix.classes);
    largest_count_ = matrix.counts.empty() ? 0 : *std::max_element(matrix.counts.begin(), matrix.counts.end());
    const auto inside = [this](const std::optional<std::pair<int, int>>& cell) {
        return cell && cell->first < matrix_.classes && cell->second < matrix_.classes;
    };
    if (!inside(selected_)) selected_.reset();
    if (!inside(hovered_)) hovered_.reset();
    forget_layout();
    update();
}

void ConfusionMatrixView::set_scale(Scale scale) {
    if (scale_ == scale) return;
    scale_ = scale;
    forget_layout();
    update();
}

QString ConfusionMatrixView::cell_text(int true_class, int predicted) const {
    if (true_class < 0 || predicted < 0 || true_class >= matrix_.classes || predicted >= matrix_.classes) return {};
    const QString count = thousands(matrix_.count(true_class, predicted));
    const QString support = thousands(matrix_.support(true_class));
    if (true_class == predicted) return tr("%1 recognised: %2 of %3").arg(names_[true_class], count, support);
    return tr("%1 taken for %2: %3 of %4").arg(names_[true_class], names_[predicted], count, support);
}

QString ConfusionMatrixView::cell_value_text(int true_class, int predicted) const {
    const std::size_t count = matrix_.count(true_class, predicted);
    if (scale_ == Scale::counts) return thousands(count);
    const std::size_t support = matrix_.support(true_class);
    if (support == 0) return QStringLiteral("–");  // a class with no samples has no shares
    return QString::number(100.0 * static_cast<double>(count) / static_cast<double>(support), 'f', 1) + '%';
}

double ConfusionMatrixView::colour_fraction(int true_class, int predicted) const {
    const double count = static_cast<double>(matrix_.count(true_class, predicted));
    if (scale_ == Scale::counts) return largest_count_ == 0 ? 0.0 : count / static_cast<double>(largest_count_);
    const std::size_t support = matrix_.support(true_class);
    return support == 0 ? 0.0 : count / static_cast<double>(support);
}

QColor ConfusionMatrixView::scale_colour(double fraction) {
    const auto& stops = blues();
    fraction = std::clamp(fraction, 0.0, 1.0);
    for (std::size_t i = 1; i < stops.size(); ++i) {
        if (fraction > stops[i].at) continue;
        const double t = (fraction - stops[i - 1].at) / (stops[i].at - stops[i - 1].at);
        const QColor& a = stops[i - 1].colour;
        const QColor& b = stops[i].colour;
        return QColor::fromRgbF(static_cast<float>(a.redF() + t * (b.redF() - a.redF())),
                                static_cast<float>(a.greenF() + t * (b.greenF() - a.greenF())),
                                static_cast<float>(a.blueF() + t * (b.blueF() - a.blueF())));
    }
    return stops.back().colour;
}

// Tableau's orange: no step of the blue scale is near it, so the selection shows on any cell.
QColor ConfusionMatrixView::selection_colour() {
    return QColor(255, 127, 14);
}

void ConfusionMatrixView::select_cell(int true_class, int predicted) {
    if (true_class < 0 || predicted < 0 || true_class >= matrix_.classes || predicted >= matrix_.classes) {
        clear_selection();
        return;
    }
    selected_ = std::pair{true_class, predicted};
    update();
}

void ConfusionMatrixView::clear_selection() {
    selected_.reset();
    update();
}

namespace {

// The largest point size, from `largest` down to `smallest`, at which `text` fits `width` x
// `height`; none when it does not fit even at the smallest.
std::optional<double> fitting_point_size(QFont font, double largest, double smallest, const QString& text, double width,
                                         double height) {
    for (double point_size = largest; point_size >= smallest; point_size -= 0.5) {
        font.setPointSizeF(point_size);
        const QFontMetricsF metrics(font);
        if (metrics.horizontalAdvance(text) <= width && metrics.height() <= height) return point_size;
    }
    return std::nullopt;
}

}  // namespace

void ConfusionMatrixView::arrange(Layout& layout, const QFont& label_font, QSize size) const {
    const int n = matrix_.classes;
    layout.label_font = label_font;
    layout.bold_font = label_font;
    layout.bold_font.setBold(true);
    const QFontMetricsF metrics(layout.label_font);
    const QFontMetricsF bold_metrics(layout.bold_font);
    layout.line = metrics.height();

    // Measured in bold: the selected cell's row and column are named in bold.
    double widest_name = 0;
    for (const QString& name : names_) widest_name = std::max(widest_name, bold_metrics.horizontalAdvance(name));
    std::size_t largest_support = 0;
    for (int t = 0; t < n; ++t) largest_support = std::max(largest_support, matrix_.support(t));
    layout.predicted_header_height = layout.line + 4;
    layout.true_header_width = layout.line + 4;
    layout.names_width = std::min(widest_name + 10, size.width() * 0.26);
    layout.totals_width =
        std::max({metrics.horizontalAdvance(tr("total")), metrics.horizontalAdvance(thousands(largest_support)),
                  bold_metrics.horizontalAdvance(thousands(matrix_.total()))}) +
        14;
    layout.totals_height = layout.line + 6;
    layout.legend_gap = 8;
    layout.legend_height = layout.line + 2;

    // Column names sit level when they fit their column, and stand up (read bottom to top) when
    // they do not; the cells take whatever room the labels leave.
    const auto fit = [&](bool rotated) {
        layout.rotated_column_names = rotated;
        layout.column_names_height = rotated ? std::min(widest_name, size.height() * 0.22) + 8 : layout.line + 4;
        const double room_w =
            size.width() - 2 * matrix_margin - layout.true_header_width - layout.names_width - layout.totals_width;
        const double room_h = size.height() - 2 * matrix_margin - layout.predicted_header_height -
                              layout.column_names_height - layout.totals_height - layout.legend_gap -
                              layout.legend_height;
        layout.cell = std::max(4.0, std::min({room_w / n, room_h / n, largest_cell}));
    };
    fit(false);
    if (widest_name + 6 > layout.cell) fit(true);

    // Column totals too wide for their column at a readable size take two lines, every other one
    // on the second, each then with two columns' width; with many classes two lines would still be
    // a jumble: they are left out where they do not fit (the CSV export has them).
    std::size_t largest_column = 0;
    for (int p = 0; p < n; ++p) largest_column = std::max(largest_column, matrix_.predicted(p));
    layout.staggered_totals =
        metrics.horizontalAdvance(thousands(largest_column)) + 3 > layout.cell && n > 2 && n <= 20;
    if (layout.staggered_totals) {
        layout.totals_height = 2 * layout.line + 6;
        fit(layout.rotated_column_names);
    }

    // The whole block is centred, so two classes do not hug a corner.
    const double block_w = layout.true_header_width + layout.names_width + n * layout.cell + layout.totals_width;
    const double block_h = layout.predicted_header_height + layout.column_names_height + n * layout.cell +
                           layout.totals_height + layout.legend_gap + layout.legend_height;
    layout.left = std::max(matrix_margin, (size.width() - block_w) / 2) + layout.true_header_width + layout.names_width;
    layout.top = std::max(matrix_margin, (size.height() - block_h) / 2) + layout.predicted_header_height +
                 layout.column_names_height;
}

const ConfusionMatrixView::Layout& ConfusionMatrixView::layout_for(QSize size) const {
    if (!layout_ || layout_size_ != size) {
        layout_ = std::make_unique<Layout>(compute_layout(size));
        layout_size_ = size;
    }
    return *layout_;
}

void ConfusionMatrixView::forget_layout() {
    layout_.reset();
}

ConfusionMatrixView::Layout ConfusionMatrixView::compute_layout(QSize size) const {
    Layout layout;
    layout.classes = matrix_.classes;
    if (matrix_.classes <= 0) return layout;
    const int n = matrix_.classes;

    // In a small view the labels shrink with the rows (not below legibility), so that a row's name
    // stays beside its row.
    const double base_size = font().pointSizeF() > 0 ? font().pointSizeF() : 9.0;
    QFont label_font = font();
    for (double point_size = base_size;; point_size -= 0.5) {
        label_font.setPointSizeF(point_size);
        arrange(layout, label_font, size);
        if (layout.cell >= layout.line || point_size - 0.5 < smallest_label_font) break;
    }

    // The cells' numbers shrink until the widest fits its cell; the column totals likewise, on
    // their own, so a total of "1,137" does not make every cell's number small.
    const QString widest_value = scale_ == Scale::counts ? thousands(largest_count_) : QStringLiteral("100.0%");
    std::size_t largest_column = 0;
    for (int p = 0; p < n; ++p) largest_column = std::max(largest_column, matrix_.predicted(p));
    const double label_size = layout.label_font.pointSizeF();
    const auto cell_size = fitting_point_size(layout.label_font, label_size, smallest_cell_font, widest_value,
                                              layout.cell - 4, layout.cell - 2);
    layout.cell_text_fits = cell_size.has_value();
    layout.cell_font = layout.label_font;
    if (cell_size) layout.cell_font.setPointSizeF(*cell_size);
    const double total_width = layout.staggered_totals ? 2 * layout.cell - 3 : layout.cell - 3;
    const auto totals_size = fitting_point_size(layout.label_font, label_size, smallest_cell_font,
                                                thousands(largest_column), total_width, layout.line);
    layout.column_totals_fit = totals_size.has_value();
    layout.totals_font = layout.label_font;
    if (totals_size) layout.totals_font.setPointSizeF(*totals_size);
    return layout;
}

QRect ConfusionMatrixView::cell_rect(int true_class, int predicted) const {
    if (true_class < 0 || predicted < 0 || true_class >= matrix_.classes || predicted >= matrix_.classes) return {};
    return layout_for(size()).cell_rect(true_class, predicted);
}

QRect ConfusionMatrixView::class_name_rect(int true_class) const {
    if (true_class < 0 || true_class >= matrix_.classes) return {};
    return layout_for(size()).row_name_rect(true_class);
}

std::optional<std::pair<int, int>> ConfusionMatrixView::cell_at(QPoint point) const {
    if (matrix_.classes <= 0) return std::nullopt;
    const Layout& layout = layout_for(size());
    if (!layout.grid().contains(point)) return std::nullopt;
    int row = 0, column = 0;
    while (row + 1 < layout.classes && layout.edge_y(row + 1) <= point.y()) ++row;
    while (column + 1 < layout.classes && layout.edge_x(column + 1) <= point.x()) ++column;
    return std::pair{row, column};
}

std::optional<int> ConfusionMatrixView::class_name_at(QPoint point) const {
    if (matrix_.classes <= 0) return std::nullopt;
    const Layout& layout = layout_for(size());
    for (int row = 0; row < layout.classes; ++row)
        if (layout.row_name_rect(row).contains(point)) return row;
    return std::nullopt;
}

void ConfusionMatrixView::paint(QPainter& painter, QSize size) const {
    const QColor background = palette().color(QPalette::Base);
    const QColor text = palette().color(QPalette::Text);
    QColor muted = text;
    muted.setAlphaF(0.6f);
    painter.fillRect(QRect(QPoint(0, 0), size), background);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::TextAntialiasing, true);

    if (matrix_.classes <= 0) {
        painter.setPen(muted);
        painter.setFont(font());
        painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No evaluation to show"));
        return;
    }

    const Layout layout = layout_for(size);
    const int n = layout.classes;
    const QRect grid = layout.grid();
    const double line = layout.line;
    const QFontMetricsF label_metrics(layout.label_font);

    // The cells, their numbers, then the lines between them.
    for (int t = 0; t < n; ++t)
        for (int p = 0; p < n; ++p) {
            const QRect cell = layout.cell_rect(t, p);
            const QColor fill = scale_colour(colour_fraction(t, p));
            painter.fillRect(cell, fill);
            if (!layout.cell_text_fits) continue;
            const bool zero = matrix_.count(t, p) == 0;
            painter.setPen(zero                    ? QColor(150, 150, 150)
                           : luminance(fill) < 0.4 ? QColor(Qt::white)
                                                   : QColor(26, 26, 26));
            painter.setFont(layout.cell_font);
            painter.drawText(cell, Qt::AlignCenter, cell_value_text(t, p));
        }
    painter.setPen(QColor(0, 0, 0, 28));
    for (int i = 0; i <= n; ++i) {
        painter.drawLine(layout.edge_x(i), grid.top(), layout.edge_x(i), grid.bottom() + 1);
        painter.drawLine(grid.left(), layout.edge_y(i), grid.right() + 1, layout.edge_y(i));
    }

    // The row names (the true classes) at the left, the column names (the predictions) on top; the
    // selected cell's row and column are named in bold.
    const int selected_row = selected_ ? selected_->first : -1;
    const int selected_column = selected_ ? selected_->second : -1;
    // With more classes than lines of text fit (CIFAR-100), every step-th class is named.
    const int name_step = std::max(1, static_cast<int>(std::ceil(line / layout.cell - 0.1)));
    for (int t = 0; t < n; t += name_step) {
        painter.setFont(t == selected_row ? layout.bold_font : layout.label_font);
        painter.setPen(text);
        const QRect name = layout.row_name_rect(t).adjusted(0, 0, -6, 0);
        painter.drawText(name, Qt::AlignRight | Qt::AlignVCenter,
                         QFontMetricsF(painter.font()).elidedText(names_[t], Qt::ElideRight, name.width()));
    }
    const double names_bottom = grid.top() - 4;
    for (int p = 0; p < n; p += name_step) {
        painter.setFont(p == selected_column ? layout.bold_font : layout.label_font);
        painter.setPen(text);
        const QFontMetricsF metrics(painter.font());
        const double centre = (layout.edge_x(p) + layout.edge_x(p + 1)) / 2.0;
        if (!layout.rotated_column_names) {
            const QRectF name(layout.edge_x(p), names_bottom - line, layout.cell, line);
            painter.drawText(name, Qt::AlignHCenter | Qt::AlignBottom, names_[p]);
            continue;
        }
        const double length = layout.column_names_height - 8;
        painter.save();
        painter.translate(centre, names_bottom);
        painter.rotate(-90);
        painter.drawText(QRectF(0, -line / 2, length, line), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(names_[p], Qt::ElideRight, length));
        painter.restore();
    }

    // The axes' headers.
    painter.setFont(layout.bold_font);
    painter.setPen(text);
    const double names_top = grid.top() - layout.column_names_height;
    painter.drawText(
        QRectF(grid.left(), names_top - layout.predicted_header_height, grid.width(), layout.predicted_header_height),
        Qt::AlignHCenter | Qt::AlignVCenter, tr("predicted"));
    painter.save();
    const double header_x = grid.left() - layout.names_width - layout.true_header_width / 2;
    painter.translate(header_x, grid.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-grid.height() / 2.0, -line / 2, grid.height(), line), Qt::AlignCenter, tr("true class"));
    painter.restore();

    // The totals: each true class's samples at the right, each prediction's at the bottom, all of
    // them in the corner.
    const QRectF totals_column(grid.right() + 1, grid.top(), layout.totals_width, grid.height());
    const QRectF totals_row(grid.left(), grid.bottom() + 1, grid.width(), layout.totals_height);
    painter.setFont(layout.label_font);
    painter.setPen(muted);
    painter.drawText(QRectF(totals_column.left(), names_bottom - line, totals_column.width(), line),
                     Qt::AlignHCenter | Qt::AlignBottom, tr("total"));
    painter.drawText(
        QRectF(grid.left() - layout.names_width, totals_row.top(), layout.names_width - 6, totals_row.height()),
        Qt::AlignRight | Qt::AlignVCenter, tr("total"));
    for (int t = 0; t < n; t += name_step) {
        const QRect row = layout.cell_rect(t, 0);
        painter.drawText(QRectF(totals_column.left() + 6, row.top(), totals_column.width() - 12, row.height()),
                         Qt::AlignRight | Qt::AlignVCenter, thousands(matrix_.support(t)));
    }
    painter.setFont(layout.totals_font);
    for (int p = 0; p < n && layout.column_totals_fit; ++p) {
        const QRect column = layout.cell_rect(0, p);
        const bool second_line = layout.staggered_totals && p % 2 == 1;
        const double line_top = totals_row.top() + 3 + (second_line ? line : 0);
        const double line_height = layout.staggered_totals ? line : totals_row.height() - 6;
        painter.drawText(QRectF(column.center().x() - layout.cell, line_top, 2 * layout.cell, line_height),
                         Qt::AlignCenter, thousands(matrix_.predicted(p)));
    }
    painter.setFont(layout.bold_font);
    painter.setPen(text);
    painter.drawText(
        QRectF(totals_column.left() + 6, totals_row.top(), totals_column.width() - 12, totals_row.height()),
        Qt::AlignRight | Qt::AlignVCenter, thousands(matrix_.total()));

    // The colour scale: what white and deep blue stand for at this scale.
    const double legend_top = totals_row.bottom() + layout.legend_gap;
    const QString low = scale_ == Scale::counts ? QStringLiteral("0") : QStringLiteral("0%");
    const QString high = scale_ == Scale::counts ? thousands(largest_count_) : QStringLiteral("100%");
    const QString caption = scale_ == Scale::counts ? tr("count") : tr("share of the true class");
    painter.setFont(layout.label_font);
    painter.setPen(muted);
    const double block_left = grid.left() - layout.names_width;
    const double block_right = grid.right() + 1 + layout.totals_width - 6;
    const double low_width = label_metrics.horizontalAdvance(low);
    const double high_width = label_metrics.horizontalAdvance(high);
    // The caption gives way (elided) before the bar gets shorter than a third of the block.
    const double caption_room = std::max(0.0, (block_right - block_left) * 2 / 3 - low_width - high_width - 24);
    const QString shown_caption = label_metrics.elidedText(caption, Qt::ElideRight, caption_room);
    const double caption_width = label_metrics.horizontalAdvance(shown_caption);
    const double bar_left = block_left + caption_width + 10 + low_width + 6;
    const double bar_right = block_right - high_width - 6;
    painter.drawText(QRectF(block_left, legend_top, caption_width + 1, line), Qt::AlignLeft | Qt::AlignVCenter,
                     shown_caption);
    painter.drawText(QRectF(bar_left - 6 - low_width, legend_top, low_width + 1, line),
                     Qt::AlignLeft | Qt::AlignVCenter, low);
    painter.drawText(QRectF(bar_right + 6, legend_top, high_width + 1, line), Qt::AlignLeft | Qt::AlignVCenter, high);
    const QRectF bar(bar_left, legend_top + line * 0.2, std::max(10.0, bar_right - bar_left), line * 0.6);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (const ColourStop& stop : blues()) gradient.setColorAt(stop.at, stop.colour);
    painter.fillRect(bar, gradient);
    painter.setPen(QColor(0, 0, 0, 60));
    painter.drawRect(bar);

    // Hovered cell, then the selected one on top, with an outline that no fill hides.
    if (hovered_ && hovered_ != selected_) {
        painter.setPen(QPen(text, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.cell_rect(hovered_->first, hovered_->second).adjusted(0, 0, -1, -1));
    }
    if (selected_) {
        painter.setPen(QPen(selection_colour(), 3, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(layout.cell_rect(selected_->first, selected_->second)).adjusted(1.5, 1.5, -1.5, -1.5));
    }
}

void ConfusionMatrixView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    paint(painter, size());
}

QImage ConfusionMatrixView::picture(QSize size) const {
    if (!size.isValid() || size.isEmpty()) size = this->size();
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    paint(painter, size);
    painter.end();
    return image;
}

bool ConfusionMatrixView::export_png(const QString& path, QString* error) const {
    return save_png(picture(), path, error);
}

bool ConfusionMatrixView::export_csv(const QString& path, QString* error) const {
    return save_text(session::confusion_csv(matrix_, to_std_names(names_)), path, error);
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    const QPoint point = event->position().toPoint();
    if (const auto cell = cell_at(point)) {
        selected_ = cell;
        update();
        emit cellClicked(cell->first, cell->second);
        return;
    }
    if (const auto row = class_name_at(point)) emit classClicked(*row);
}

void ConfusionMatrixView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint point = event->position().toPoint();
    const auto cell = cell_at(point);
    if (cell != hovered_) {
        hovered_ = cell;
        update();
    }
    setCursor(cell || class_name_at(point) ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
}

void ConfusionMatrixView::leaveEvent(QEvent* event) {
    if (hovered_) {
        hovered_.reset();
        update();
    }
    QWidget::leaveEvent(event);
}

void ConfusionMatrixView::keyPressEvent(QKeyEvent* event) {
    if (matrix_.classes <= 0) return QWidget::keyPressEvent(event);
    // The arrows walk the cells as clicks would (each one shows its images); Enter repeats the cell.
    auto [t, p] = selected_.value_or(std::pair{0, 0});
    switch (event->key()) {
        case Qt::Key_Left:
            p = std::max(0, p - (selected_ ? 1 : 0));
            break;
        case Qt::Key_Right:
            p = std::min(matrix_.classes - 1, p + (selected_ ? 1 : 0));
            break;
        case Qt::Key_Up:
            t = std::max(0, t - (selected_ ? 1 : 0));
            break;
        case Qt::Key_Down:
            t = std::min(matrix_.classes - 1, t + (selected_ ? 1 : 0));
            break;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            break;
        default:
            return QWidget::keyPressEvent(event);
    }
    selected_ = std::pair{t, p};
    update();
    emit cellClicked(t, p);
}

void ConfusionMatrixView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) forget_layout();
    QWidget::changeEvent(event);
}

bool ConfusionMatrixView::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    const auto* help = static_cast<QHelpEvent*>(event);
    if (const auto cell = cell_at(help->pos())) {
        QToolTip::showText(help->globalPos(), cell_text(cell->first, cell->second), this,
                           cell_rect(cell->first, cell->second));
    } else if (const auto row = class_name_at(help->pos())) {
        QToolTip::showText(help->globalPos(),
                           tr("%1: %2 images. Click to show them.").arg(names_[*row], thousands(matrix_.support(*row))),
                           this, class_name_rect(*row));
    } else {
        QToolTip::hideText();
        event->ignore();
    }
    return true;
}

}  // namespace bps::ui
