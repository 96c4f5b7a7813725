#include "ui/inside/parameter_histograms.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/legend_row.h"
#include "ui/charts/run_palette.h"
#include "ui/inside/short_number.h"

namespace bps::ui {

namespace {

constexpr double bold_width = 2.5;
constexpr double thin_width = 1.0;
constexpr double size_line_width = 1.6;
constexpr double chosen_size_line_width = 3.0;
constexpr int bold_fill_alpha = 45;
// The earliest epoch's line is mostly white, the latest earlier one nearly the bold colour.
constexpr double earliest_lightness = 0.82;
constexpr double latest_lightness = 0.25;
const QColor weights_colour(0x2B, 0x5C, 0x8A);
const QColor gradients_colour(0xC0, 0x5A, 0x0C);
const QColor hint_colour(120, 120, 120);

// "conv1" of "conv1.weight": the legend and the finding name layers, as the canvas does.
QString layer_of(const QString& parameter) {
    const qsizetype dot = parameter.lastIndexOf(QLatin1Char('.'));
    return dot > 0 ? parameter.left(dot) : parameter;
}

QColor mixed_with_white(const QColor& colour, double white) {
    auto channel = [white](int value) { return static_cast<int>(std::lround(value + (255 - value) * white)); };
    return QColor(channel(colour.red()), channel(colour.green()), channel(colour.blue()));
}

bool positive(double value) {
    return std::isfinite(value) && value > 0;
}

// Tick labels as the figures table writes numbers ("-2.5e-5", not "-2.5·10⁻⁵"); a tick that is
// zero but for rounding reads "0".
class ShortNumberTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return short_number(tick); }
    QVector<double> createTickVector(double step, const QCPRange& range) override {
        QVector<double> ticks = QCPAxisTicker::createTickVector(step, range);
        for (double& tick : ticks)
            if (std::abs(tick) < step * 1e-6) tick = 0;
        return ticks;
    }
};

QCPTextElement* title_of(QCustomPlot* plot) {
    return qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
}

// The centred grey line a plot shows where it has nothing to draw.
QCPItemText* text_item(QCustomPlot* plot, const QString& name) {
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->objectName() == name) return text;
    return nullptr;
}

QCPItemText* hint_of(QCustomPlot* plot) {
    return text_item(plot, QStringLiteral("hint"));
}

// The small grey note in a histogram's top left corner that says which epochs the thin lines are.
QCPItemText* note_of(QCustomPlot* plot) {
    return text_item(plot, QStringLiteral("note"));
}

void show_hint(QCustomPlot* plot, const QString& text) {
    QCPItemText* hint = hint_of(plot);
    hint->setText(text);
    hint->setVisible(!text.isEmpty());
}

}  // namespace

ParameterHistograms::ParameterHistograms(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("insideHistograms"));
    pages_ = new QStackedWidget(this);
    auto* charts = new QWidget(pages_);
    weights_plot_ = make_plot(QStringLiteral("insideWeightsHistogram"));
    gradients_plot_ = make_plot(QStringLiteral("insideGradientsHistogram"));
    sizes_plot_ = make_plot(QStringLiteral("insideGradientSizes"));
    weights_plot_->setToolTip(
        tr("How this layer's weights are spread over their values: each line is a density (the area under it is 1, "
           "so epochs compare whatever their ranges).\n"
           "The bold line is the chosen epoch; the thin lines are earlier epochs, light for the first, dark for the "
           "latest.\nTraining usually widens the spread a little as the weights learn."));
    gradients_plot_->setToolTip(
        tr("How large the gradients of this layer's weights are: the step each weight is pushed by, before the "
           "learning rate.\nThe bold line is the chosen epoch; thin lines are earlier epochs.\nAll of them near zero "
           "means the layer barely learns. Epoch 0 has none: gradients come with the first batch."));
    sizes_plot_->setToolTip(
        tr("The size (standard deviation) of each layer's gradients after each epoch, on a log scale: each step up "
           "is ten times larger.\nA layer far below the others learns slowly (vanishing gradients); a line that "
           "shoots up means exploding gradients.\nThe dashed line marks the chosen epoch. Click a line or a layer's "
           "name to see its histograms."));

    for (QCustomPlot* plot : {weights_plot_, gradients_plot_}) {
        plot->xAxis->setLabel(tr("value"));
        plot->yAxis->setLabel(tr("density"));
        plot->xAxis->setTicker(QSharedPointer<ShortNumberTicker>::create());
        plot->xAxis->setNumberFormat(QStringLiteral("g"));  // no "b": the painter would turn "e-5" into a power
        auto* note = new QCPItemText(plot);
        note->setObjectName(QStringLiteral("note"));
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.02, 0.02);
        note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        note->setTextAlignment(Qt::AlignLeft);
        note->setColor(hint_colour);
        QFont note_font = font();
        note_font.setPointSizeF(note_font.pointSizeF() * 0.8);
        note->setFont(note_font);
        note->setVisible(false);
    }
    sizes_plot_->xAxis->setLabel(tr("epoch"));
    sizes_plot_->yAxis->setLabel(tr("gradient std (log)"));
    sizes_plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    auto log_ticker = QSharedPointer<QCPAxisTickerLog>::create();
    log_ticker->setSubTickCount(8);
    sizes_plot_->yAxis->setTicker(log_ticker);
    sizes_plot_->yAxis->setNumberFormat(QStringLiteral("eb"));  // 10 to a power, as powers read
    sizes_plot_->yAxis->setNumberPrecision(0);
    auto epoch_ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    epoch_ticker->setTickStep(1);
    epoch_ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    sizes_plot_->xAxis->setTicker(epoch_ticker);

    // The legend is a row under the title, not inside the plot, so it never hides a line.
    QCPLegend* legend = legend_under_title(*sizes_plot_);
    legend->setVisible(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    legend->setFont(small);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 0));
    legend->setColumnSpacing(8);
    legend->setRowSpacing(0);
    legend->setIconSize(18, 10);  // the line and its dot; the default is as wide as a short name

    chosen_line_ = new QCPItemStraightLine(sizes_plot_);
    chosen_line_->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    chosen_line_->setVisible(false);
    chosen_label_ = new QCPItemText(sizes_plot_);
    chosen_label_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    chosen_label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    chosen_label_->setColor(QColor(90, 90, 90));
    chosen_label_->setFont(small);
    chosen_label_->setVisible(false);
    sizes_plot_->installEventFilter(this);
    connect(sizes_plot_, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* line, int, QMouseEvent*) { choose(line); });
    connect(sizes_plot_, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                if (auto* entry = qobject_cast<QCPPlottableLegendItem*>(item)) choose(entry->plottable());
            });

    finding_label_ = new QLabel(charts);
    finding_label_->setObjectName(QStringLiteral("insideHistogramsFinding"));
    finding_label_->setWordWrap(true);
    finding_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    finding_label_->setStyleSheet(QStringLiteral("QLabel { color: #9A3412; font-weight: bold; }"));
    finding_label_->hide();

    auto* sizes_column = new QVBoxLayout;
    sizes_column->setContentsMargins(0, 0, 0, 0);
    sizes_column->setSpacing(2);
    sizes_column->addWidget(sizes_plot_, 1);
    sizes_column->addWidget(finding_label_);
    auto* row = new QHBoxLayout(charts);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(6);
    row->addWidget(weights_plot_, 1);
    row->addWidget(gradients_plot_, 1);
    row->addLayout(sizes_column, 1);

    reason_label_ = new QLabel(pages_);
    reason_label_->setObjectName(QStringLiteral("insideHistogramsReason"));
    reason_label_->setAlignment(Qt::AlignCenter);
    reason_label_->setWordWrap(true);
    reason_label_->setMargin(12);
    pages_->addWidget(charts);
    pages_->addWidget(reason_label_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(pages_);
    clear(tr("No histograms yet: they come with the first epoch of a run"));
}

QCustomPlot* ParameterHistograms::make_plot(const QString& object_name) {
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(object_name);
    plot->setMinimumSize(200, 150);
    plot->setAutoAddPlottableToLegend(false);
    QFont title_font = font();
    title_font.setBold(true);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, QString(), title_font));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setTickLabelFont(small);
        axis->setLabelFont(small);
        axis->grid()->setPen(QPen(QColor(225, 225, 225), 0, Qt::SolidLine));
    }
    auto* hint = new QCPItemText(plot);
    hint->setObjectName(QStringLiteral("hint"));
    hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint->position->setCoords(0.5, 0.5);
    hint->setPositionAlignment(Qt::AlignCenter);
    hint->setColor(hint_colour);
    hint->setVisible(false);
    return plot;
}

void ParameterHistograms::set_histories(std::vector<ParameterHistory> all, QString chosen_parameter, int chosen_epoch) {
    if (all.empty()) {
        clear(tr("This network has no layer with weights to show"));
        return;
    }
    all_ = std::move(all);
    const auto chosen = std::find_if(all_.begin(), all_.end(), [&](const ParameterHistory& history) {
        return history.parameter == chosen_parameter;
    });
    chosen_parameter_ = chosen != all_.end() ? chosen_parameter : all_.front().parameter;
    chosen_epoch_ = chosen_epoch;
    draw_histograms(chosen != all_.end() ? *chosen : all_.front());
    draw_gradient_sizes();
    finding_ = find_finding();
    finding_label_->setText(finding_);
    finding_label_->setVisible(!finding_.isEmpty());
    pages_->setCurrentIndex(0);
    for (QCustomPlot* plot : {weights_plot_, gradients_plot_, sizes_plot_}) plot->replot();
}

void ParameterHistograms::clear(const QString& reason) {
    all_.clear();
    chosen_parameter_.clear();
    chosen_epoch_ = 0;
    finding_.clear();
    finding_label_->clear();
    finding_label_->hide();
    for (QCustomPlot* plot : {weights_plot_, gradients_plot_, sizes_plot_}) {
        plot->clearGraphs();
        show_hint(plot, QString());
    }
    weights_drawn_.clear();
    gradients_drawn_.clear();
    size_lines_.clear();
    sizes_plot_->legend->clearItems();
    chosen_line_->setVisible(false);
    chosen_label_->setVisible(false);
    reason_label_->setText(reason);
    pages_->setCurrentIndex(1);
}

QString ParameterHistograms::reason() const {
    return pages_->currentIndex() == 1 ? reason_label_->text() : QString();
}

void ParameterHistograms::draw_histograms(const ParameterHistory& history) {
    const QString layer = layer_of(history.parameter);
    draw_overlay(weights_plot_, weights_drawn_, history, false, tr("%1's weights").arg(layer));
    draw_overlay(gradients_plot_, gradients_drawn_, history, true, tr("%1's gradients").arg(layer));
}

// The epochs up to the chosen one, oldest first so that later lines lie on top, the last bold.
void ParameterHistograms::draw_overlay(QCustomPlot* plot, std::vector<DrawnCurve>& drawn,
                                       const ParameterHistory& history, bool gradients, const QString& title) {
    plot->clearGraphs();
    drawn.clear();
    std::vector<std::pair<int, const session::Histogram*>> shown;
    for (const EpochFigures& figures : history.epochs) {
        if (figures.epoch > chosen_epoch_) continue;
        const session::ValueFigures* values =
            gradients ? (figures.gradients ? &*figures.gradients : nullptr) : &figures.weights;
        if (values && !values->histogram.counts.empty()) shown.emplace_back(figures.epoch, &values->histogram);
    }
    std::stable_sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const QColor base = gradients ? gradients_colour : weights_colour;
    double x_low = 0, x_high = 0, y_high = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const auto [epoch, histogram] = shown[i];
        const bool bold = i + 1 == shown.size();
        const std::size_t bins = histogram->counts.size();
        const double width = (static_cast<double>(histogram->high) - histogram->low) / static_cast<double>(bins);
        // A density (the area under each line is 1): every epoch has bins of its own width, so
        // counts would make a narrower spread look like fewer weights rather than a taller peak.
        double total = 0;
        for (std::uint32_t count : histogram->counts) total += count;
        const double scale = total > 0 && width > 0 ? 1.0 / (total * width) : 0.0;
        QVector<double> keys, values;
        for (std::size_t bin = 0; bin < bins; ++bin) {
            keys.append(histogram->low + (static_cast<double>(bin) + 0.5) * width);
            values.append(static_cast<double>(histogram->counts[bin]) * scale);
            y_high = std::max(y_high, values.back());
        }
        if (std::isfinite(histogram->low) && std::isfinite(histogram->high)) {
            x_low = std::min(x_low, static_cast<double>(histogram->low));
            x_high = std::max(x_high, static_cast<double>(histogram->high));
        }
        QCPGraph* graph = plot->addGraph();
        graph->setData(keys, values, true);
        graph->setName(tr("epoch %1").arg(epoch));
        if (bold) {
            graph->setPen(QPen(base, bold_width));
            QColor fill = base;
            fill.setAlpha(bold_fill_alpha);
            graph->setBrush(fill);
        } else {
            const double step = shown.size() > 2 ? static_cast<double>(i) / static_cast<double>(shown.size() - 2) : 1;
            graph->setPen(
                QPen(mixed_with_white(base, earliest_lightness + (latest_lightness - earliest_lightness) * step),
                     thin_width));
        }
        drawn.push_back({epoch, graph});
    }
    QCPItemText* note = note_of(plot);
    note->setVisible(drawn.size() > 1);
    if (drawn.size() > 1)
        note->setText(
            drawn.size() > 2
                ? tr("thin: epochs %1–%2,\nlight to dark").arg(drawn.front().epoch).arg(drawn[drawn.size() - 2].epoch)
                : tr("thin: epoch %1").arg(drawn.front().epoch));
    if (drawn.empty()) {
        title_of(plot)->setText(title);
        show_hint(plot, gradients && chosen_epoch_ == 0 ? tr("No gradients at epoch 0:\nthey come with the first batch")
                                                        : tr("Nothing recorded up to epoch %1").arg(chosen_epoch_));
        plot->xAxis->setRange(-1, 1);
        plot->yAxis->setRange(0, 1);
        return;
    }
    show_hint(plot, QString());
    const int bold_epoch = drawn.back().epoch;
    title_of(plot)->setText(tr("%1, epoch %2").arg(title).arg(bold_epoch));
    // Symmetric about zero, as the histograms are, so that zero stays in the middle across epochs.
    double half = std::max(std::abs(x_low), std::abs(x_high));
    if (!(half > 0)) half = 1;
    plot->xAxis->setRange(-half * 1.02, half * 1.02);
    plot->yAxis->setRange(0, y_high > 0 ? y_high * 1.08 : 1);
}

void ParameterHistograms::draw_gradient_sizes() {
    sizes_plot_->clearGraphs();
    size_lines_.clear();
    QCPLegend* legend = sizes_plot_->legend;
    legend->clearItems();
    double low = std::numeric_limits<double>::infinity(), high = 0;
    int first_epoch = std::numeric_limits<int>::max(), last_epoch = std::numeric_limits<int>::min();
    for (std::size_t i = 0; i < all_.size(); ++i) {
        const ParameterHistory& history = all_[i];
        QVector<double> keys, values;
        for (const EpochFigures& figures : history.epochs) {
            first_epoch = std::min(first_epoch, figures.epoch);
            last_epoch = std::max(last_epoch, figures.epoch);
            if (!figures.gradients || !positive(figures.gradients->deviation)) continue;
            keys.append(figures.epoch);
            values.append(figures.gradients->deviation);
            low = std::min(low, values.back());
            high = std::max(high, values.back());
        }
        QCPGraph* graph = sizes_plot_->addGraph();
        graph->setData(keys, values);
        graph->setName(layer_of(history.parameter));
        const bool chosen = history.parameter == chosen_parameter_;
        const QColor colour = palette_colour(static_cast<int>(i));
        graph->setPen(QPen(colour, chosen ? chosen_size_line_width : size_line_width));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, chosen ? 7 : 5));
        graph->addToLegend(legend);
        size_lines_.push_back({history.parameter, graph});
    }
    if (first_epoch > last_epoch) first_epoch = last_epoch = chosen_epoch_;
    first_epoch = std::min(first_epoch, chosen_epoch_);
    last_epoch = std::max(last_epoch, chosen_epoch_);
    sizes_plot_->xAxis->setRange(first_epoch - 0.3, last_epoch + 0.3);
    if (high > 0) {
        // Whole decades, so that at least two powers of ten are labelled however close the sizes are.
        sizes_plot_->yAxis->setRange(std::pow(10.0, std::floor(std::log10(low / 1.5))),
                                     std::pow(10.0, std::ceil(std::log10(high * 1.5))));
        show_hint(sizes_plot_, QString());
    } else {
        sizes_plot_->yAxis->setRange(1e-4, 1);
        show_hint(sizes_plot_, tr("No gradients yet:\nthey come with the first batch"));
    }
    chosen_line_->point1->setCoords(chosen_epoch_, 1);
    chosen_line_->point2->setCoords(chosen_epoch_, 10);
    chosen_line_->setVisible(true);
    // Its label reads beside the line, on the side with room: left of it in the right half.
    const bool left = chosen_epoch_ > (first_epoch + last_epoch) / 2.0;
    chosen_label_->position->setCoords(chosen_epoch_, 0);
    chosen_label_->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    chosen_label_->setPadding(left ? QMargins(0, 2, 4, 0) : QMargins(4, 2, 0, 0));
    chosen_label_->setText(tr("epoch %1").arg(chosen_epoch_));
    chosen_label_->setVisible(true);
    title_of(sizes_plot_)->setText(tr("Gradient size by layer"));
    fit_size_legend();
}

// As many legend entries side by side as fit the chart's width, so that none is cut.
void ParameterHistograms::fit_size_legend() {
    QCPLegend* legend = sizes_plot_->legend;
    // itemCount() counts the grid's cells, and a wrapped grid has empty ones.
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i)) widths.push_back(item->minimumOuterSizeHint().width());
    const int count = static_cast<int>(widths.size());
    if (count == 0) return;
    const int available = sizes_plot_->width() - legend->margins().left() - legend->margins().right();
    int wrap = 1;
    for (int columns = count; columns > 1; --columns) {
        int needed = (columns - 1) * legend->columnSpacing();
        for (int column = 0; column < columns; ++column) {
            int widest = 0;
            for (int i = column; i < count; i += columns)
                widest = std::max(widest, widths[static_cast<std::size_t>(i)]);
            needed += widest;
        }
        if (needed <= available) {
            wrap = columns;
            break;
        }
    }
    if (legend->wrap() == wrap) return;
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    sizes_plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool ParameterHistograms::eventFilter(QObject* watched, QEvent* event) {
    if (watched == sizes_plot_ && event->type() == QEvent::Resize) fit_size_legend();
    return QWidget::eventFilter(watched, event);
}

void ParameterHistograms::choose(const QCPAbstractPlottable* line) {
    for (const SizeLine& size_line : size_lines_)
        if (size_line.graph == line) {
            emit parameterChosen(size_line.parameter);
            return;
        }
}

// Vanishing: at the chosen epoch, the smallest layer's gradient size against the largest's.
// Exploding: a layer's gradients turning NaN or infinite, or growing a hundredfold (from an
// earlier epoch's size to a later one's, over all the epochs shown).
QString ParameterHistograms::find_finding() const {
    QStringList sentences;
    int smallest = -1, largest = -1;
    double smallest_size = 0, largest_size = 0;
    for (std::size_t i = 0; i < all_.size(); ++i)
        for (const EpochFigures& figures : all_[i].epochs) {
            if (figures.epoch != chosen_epoch_ || !figures.gradients || !positive(figures.gradients->deviation))
                continue;
            const double size = figures.gradients->deviation;
            if (smallest < 0 || size < smallest_size) smallest = static_cast<int>(i), smallest_size = size;
            if (largest < 0 || size > largest_size) largest = static_cast<int>(i), largest_size = size;
        }
    if (smallest >= 0 && smallest != largest && smallest_size < vanishing_ratio * largest_size) {
        const QString small_layer = layer_of(all_[static_cast<std::size_t>(smallest)].parameter);
        const QString large_layer = layer_of(all_[static_cast<std::size_t>(largest)].parameter);
        const QString ratio = ratio_text(largest_size / smallest_size);
        sentences << (smallest < largest
                          ? tr("%1's gradients are 1/%2 of %3's: the first layers learn slowly (vanishing gradients)")
                                .arg(small_layer, ratio, large_layer)
                          : tr("%1's gradients are 1/%2 of %3's: %1 learns far more slowly than the layers before it")
                                .arg(small_layer, ratio, large_layer));
    }

    QString broken;
    double best_growth = 0;
    QString grown;
    for (const ParameterHistory& history : all_) {
        double lowest = 0;
        int lowest_epoch = 0;
        bool any = false;
        for (const EpochFigures& figures : history.epochs) {
            if (!figures.gradients) continue;
            const double size = figures.gradients->deviation;
            if (!std::isfinite(size)) {
                if (broken.isEmpty())
                    broken = tr("%1's gradients became %2 at epoch %3: training blew up (exploding gradients)")
                                 .arg(layer_of(history.parameter), std::isnan(size) ? tr("NaN") : tr("infinite"))
                                 .arg(figures.epoch);
                break;
            }
            if (!(size > 0)) continue;
            if (any && size / lowest >= exploding_growth && size / lowest > best_growth) {
                best_growth = size / lowest;
                const int epochs = figures.epoch - lowest_epoch;
                grown = tr("%1's gradients grew %2x in %3 (exploding)")
                            .arg(layer_of(history.parameter), ratio_text(best_growth),
                                 epochs == 1 ? tr("1 epoch") : tr("%1 epochs").arg(epochs));
            }
            if (!any || size < lowest) lowest = size, lowest_epoch = figures.epoch;
            any = true;
        }
    }
    if (!broken.isEmpty())
        sentences << broken;
    else if (!grown.isEmpty())
        sentences << grown;
    return sentences.join(QLatin1Char('\n'));
}

const ParameterHistograms::DrawnCurve* ParameterHistograms::drawn(const std::vector<DrawnCurve>& curves,
                                                                  int epoch) const {
    const auto found =
        std::find_if(curves.begin(), curves.end(), [epoch](const DrawnCurve& c) { return c.epoch == epoch; });
    return found == curves.end() ? nullptr : &*found;
}

namespace {
std::vector<double> values_of(const QCPGraph* graph) {
    std::vector<double> values;
    for (const QCPGraphData& point : *graph->data()) values.push_back(point.value);
    return values;
}
std::vector<double> keys_of(const QCPGraph* graph) {
    std::vector<double> keys;
    for (const QCPGraphData& point : *graph->data()) keys.push_back(point.key);
    return keys;
}
}  // namespace

std::vector<double> ParameterHistograms::weights_curve(int epoch) const {
    const DrawnCurve* curve = drawn(weights_drawn_, epoch);
    return curve ? values_of(curve->graph) : std::vector<double>{};
}

std::vector<double> ParameterHistograms::gradients_curve(int epoch) const {
    const DrawnCurve* curve = drawn(gradients_drawn_, epoch);
    return curve ? values_of(curve->graph) : std::vector<double>{};
}

std::vector<double> ParameterHistograms::weights_bin_centres(int epoch) const {
    const DrawnCurve* curve = drawn(weights_drawn_, epoch);
    return curve ? keys_of(curve->graph) : std::vector<double>{};
}

std::vector<int> ParameterHistograms::weights_epochs() const {
    std::vector<int> epochs;
    for (const DrawnCurve& curve : weights_drawn_) epochs.push_back(curve.epoch);
    return epochs;
}

std::vector<int> ParameterHistograms::gradients_epochs() const {
    std::vector<int> epochs;
    for (const DrawnCurve& curve : gradients_drawn_) epochs.push_back(curve.epoch);
    return epochs;
}

// The bold line is the one drawn widest; tests read it from the pens, not from our bookkeeping.
namespace {
int widest_epoch(const std::vector<std::pair<int, double>>& widths) {
    int epoch = -1;
    double widest = 0;
    for (const auto& [e, width] : widths)
        if (width > widest) epoch = e, widest = width;
    return epoch;
}
}  // namespace

int ParameterHistograms::bold_weights_epoch() const {
    std::vector<std::pair<int, double>> widths;
    for (const DrawnCurve& curve : weights_drawn_) widths.emplace_back(curve.epoch, curve.graph->pen().widthF());
    return widest_epoch(widths);
}

int ParameterHistograms::bold_gradients_epoch() const {
    std::vector<std::pair<int, double>> widths;
    for (const DrawnCurve& curve : gradients_drawn_) widths.emplace_back(curve.epoch, curve.graph->pen().widthF());
    return widest_epoch(widths);
}

std::vector<double> ParameterHistograms::gradient_sizes(const QString& parameter) const {
    for (const SizeLine& line : size_lines_)
        if (line.parameter == parameter) return values_of(line.graph);
    return {};
}

std::vector<double> ParameterHistograms::gradient_size_epochs(const QString& parameter) const {
    for (const SizeLine& line : size_lines_)
        if (line.parameter == parameter) return keys_of(line.graph);
    return {};
}

int ParameterHistograms::gradient_size_line_count() const {
    return static_cast<int>(size_lines_.size());
}

}  // namespace bps::ui
