#include "ui/devices/comparison_charts.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/legend_row.h"
#include "ui/charts/run_palette.h"

namespace bps::ui {

namespace {

constexpr double group_width = 0.7;  // of the space between two devices
constexpr int max_label_length = 40;
constexpr int tick_line_length = 16;
const double none = std::nan("");

double or_none(double value) {
    return value > 0 && std::isfinite(value) ? value : none;
}
double or_none(const std::optional<double>& value, double scale = 1) {
    return value ? or_none(*value * scale) : none;
}

QString figure_text(double value, int decimals) {
    if (value >= 10000) return QLocale().toString(std::llround(value));
    return QLocale().toString(value, 'f', value >= 100 ? 0 : decimals);
}

// A device's label in lines of about tick_line_length characters, broken after '-' or ' ', so
// that the labels of devices side by side do not run into each other; at most three lines.
QString wrapped(const QString& label) {
    QStringList lines{QString()};
    QString word;
    auto place = [&] {
        if (!lines.back().isEmpty() && lines.back().size() + word.size() > tick_line_length) lines << QString();
        lines.back() += word;
        word.clear();
    };
    for (const QChar c : label) {
        word += c;
        if (c == QLatin1Char('-') || c == QLatin1Char(' ')) place();
    }
    place();
    for (QString& line : lines) line = line.trimmed();
    if (lines.size() > 3) {
        lines = lines.mid(0, 3);
        lines.back() += QStringLiteral("…");
    }
    return lines.join(QLatin1Char('\n'));
}

// Bars of one series in a chart of several: side by side, in this series' colour.
QColor series_colour(int series, int count) {
    return count == 1 ? palette_colour(0) : palette_colour(series);
}

}  // namespace

ComparisonCharts::ComparisonCharts(QWidget* parent) : QWidget(parent) {
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    plots_[images_per_s] = make_plot(tr("Training images/s"), tr("images/s"));
    plots_[first_batch] = make_plot(tr("Time to the first batch"), tr("seconds"));
    plots_[bandwidth] = make_plot(tr("Bandwidth"), tr("GB/s"));
    plots_[gflops] = make_plot(tr("Arithmetic"), tr("GFLOP/s"));
    plots_[peak_share] = make_plot(tr("Share of the device's peak"), tr("%"));
    // Two lines: in one, the title is wider than the chart at 1280 px.
    plots_[loss] = make_plot(tr("Loss curves\n(same batches, same start)"), tr("loss"));
    plots_[loss]->xAxis->setLabel(tr("batch"));
    plots_[loss]->legend->setWrap(1);  // device names are long: one a row
    for (int i = 0; i < chart_count; ++i) grid->addWidget(plots_[i], i / 3, i % 3);
    // The six share the space evenly, whatever their titles and legends ask for.
    for (int i = 0; i < 3; ++i) grid->setColumnStretch(i, 1);
    for (int i = 0; i < 2; ++i) grid->setRowStretch(i, 1);
    // Why the cold and warm start chart is empty, where the chart would be.
    reason_ = new QLabel(plots_[first_batch]);
    reason_->setObjectName(QStringLiteral("comparisonChartReason"));
    reason_->setWordWrap(true);
    reason_->setAlignment(Qt::AlignCenter);
    reason_->setAutoFillBackground(true);
    reason_->setMargin(8);
    reason_->hide();
    for (QCustomPlot* plot : plots_) plot->installEventFilter(this);
    show_results({});
}

bool ComparisonCharts::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize)
        for (QCustomPlot* plot : plots_)
            if (plot == watched) {
                fit_legend(plot);
                if (plot == plots_[first_batch]) place_reason();
            }
    return QWidget::eventFilter(watched, event);
}

// Two legend entries side by side when they fit the chart's width, else one a row, so that no
// entry is cut.
void ComparisonCharts::fit_legend(QCustomPlot* plot) {
    QCPLegend* legend = plot->legend;
    const int preferred = plot == plots_[loss] ? 1 : 2;
    int needed = legend->margins().left() + legend->margins().right();
    for (int i = 0; i < legend->itemCount(); ++i)
        needed += legend->item(i)->minimumOuterSizeHint().width() + (i > 0 ? legend->columnSpacing() : 0);
    const int wrap = needed <= plot->width() ? preferred : 1;
    if (legend->wrap() == wrap) return;
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

// The reason covers the chart's axis area, under its title and legend.
void ComparisonCharts::place_reason() {
    QCustomPlot* plot = plots_[first_batch];
    const int top = plot->axisRect()->outerRect().top();
    reason_->setGeometry(8, std::max(top, 0), std::max(plot->width() - 16, 0), std::max(plot->height() - top - 8, 0));
}

QString ComparisonCharts::device_label(const device::DeviceDescription& device) {
    QString name = QString::fromStdString(device.name).simplified();
    if (name.size() > max_label_length) name = name.left(max_label_length - 1) + QStringLiteral("…");
    return QString::number(device.index) + QStringLiteral(": ") + name;
}

QCustomPlot* ComparisonCharts::make_plot(const QString& title, const QString& unit) {
    auto* plot = new QCustomPlot(this);
    plot->setMinimumSize(200, 150);
    plot->setAutoAddPlottableToLegend(false);
    QFont title_font = font();
    title_font.setBold(true);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, title_font));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setTickLabelFont(small);
        axis->setLabelFont(small);
        axis->grid()->setPen(QPen(QColor(225, 225, 225), 0, Qt::SolidLine));
    }
    plot->yAxis->setLabel(unit);
    // The legend is a row under the title, so it never hides a bar's figure or a curve.
    QCPLegend* legend = legend_under_title(*plot);
    // Always visible (an empty legend is a thin row): a hidden element in the layout squeezed the
    // axis rect of a chart with one series.
    legend->setWrap(2);
    legend->setVisible(true);
    legend->setFont(small);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 0));
    return plot;
}

void ComparisonCharts::show_results(const std::vector<bench::DeviceComparison>& devices) {
    QStringList labels;
    std::vector<double> images, cold, warm, copy, step_bytes, sgemm, step_flops, of_peak, of_bandwidth;
    for (const bench::DeviceComparison& result : devices) {
        labels << device_label(result.device);
        images.push_back(or_none(result.images_per_s));
        cold.push_back(or_none(result.cold_start_s));
        warm.push_back(or_none(result.warm_start_s));
        copy.push_back(or_none(result.copy_gb_per_s));
        step_bytes.push_back(or_none(result.step_gb_per_s));
        sgemm.push_back(or_none(result.sgemm_gflops_per_s));
        step_flops.push_back(or_none(result.step_gflops_per_s));
        of_peak.push_back(or_none(result.of_sgemm_peak, 100));
        of_bandwidth.push_back(or_none(result.of_bandwidth, 100));
    }
    show_bars(images_per_s, labels, {{tr("training on random data"), images}}, 0);
    show_bars(first_batch, labels, {{tr("cold caches"), cold}, {tr("warm caches"), warm}}, 2);
    show_bars(bandwidth, labels, {{tr("device copy"), copy}, {tr("training step"), step_bytes}}, 1);
    show_bars(gflops, labels, {{tr("device SGEMM"), sgemm}, {tr("training step"), step_flops}}, 1);
    show_bars(peak_share, labels, {{tr("of SGEMM rate"), of_peak}, {tr("of copy bandwidth"), of_bandwidth}}, 1);
    show_losses(devices);
    show_reason(devices);
    for (QCustomPlot* plot : plots_) fit_legend(plot);
}

void ComparisonCharts::show_reason(const std::vector<bench::DeviceComparison>& devices) {
    QStringList reasons;
    bool any_time = false;
    for (const bench::DeviceComparison& result : devices) {
        any_time = any_time || result.cold_start_s || result.warm_start_s;
        const QString reason = QString::fromStdString(result.start_error);
        if (!reason.isEmpty() && !reasons.contains(reason)) reasons << reason;
    }
    if (any_time || reasons.isEmpty()) {
        reason_->hide();
        return;
    }
    reason_->setText(tr("The first batch was not timed: %1.").arg(reasons.join(QStringLiteral("; "))));
    plots_[first_batch]->replot();  // the axis rect's place, under the title and legend
    place_reason();
    reason_->show();
}

QLabel* ComparisonCharts::chart_reason() const {
    return reason_->isHidden() ? nullptr : reason_;
}

void ComparisonCharts::show_bars(Chart chart, const QStringList& devices, const std::vector<Series>& series,
                                 int decimals) {
    QCustomPlot* plot = plots_[chart];
    plot->clearPlottables();
    plot->clearItems();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < devices.size(); ++i) ticker->addTick(i + 1, wrapped(devices[i]));
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(devices.size() > 3 ? 30 : 0);
    plot->xAxis->setRange(0.4, devices.size() + 0.6);
    auto* group = series.size() > 1 ? new QCPBarsGroup(plot) : nullptr;
    const double width = group_width / static_cast<double>(series.size());
    double top = 0;
    for (std::size_t s = 0; s < series.size(); ++s) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        const QColor colour = series_colour(static_cast<int>(s), static_cast<int>(series.size()));
        bars->setName(series[s].name);
        bars->setPen(QPen(colour.darker(120)));
        bars->setBrush(colour);
        bars->setWidth(width);
        if (group) bars->setBarsGroup(group);
        for (std::size_t d = 0; d < series[s].values.size(); ++d) {
            const double value = series[s].values[d];
            if (std::isnan(value)) continue;
            bars->addData(static_cast<double>(d + 1), value);
            top = std::max(top, value);
            // The figure above its bar, so the learner reads numbers, not bar heights.
            auto* text = new QCPItemText(plot);
            const double offset = group ? (static_cast<double>(s) - (series.size() - 1) / 2.0) * width : 0;
            text->position->setCoords(static_cast<double>(d + 1) + offset, value);
            text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            text->setText(figure_text(value, decimals));
            QFont small = font();
            small.setPointSizeF(small.pointSizeF() * 0.8);
            text->setFont(small);
            text->setClipToAxisRect(false);
        }
        bars->addToLegend();
    }
    plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);  // room for the figures above the bars
    plot->replot();
}

void ComparisonCharts::show_losses(const std::vector<bench::DeviceComparison>& devices) {
    QCustomPlot* plot = plots_[loss];
    plot->clearGraphs();
    plot->legend->clearItems();
    double low = std::numeric_limits<double>::infinity(), high = -low;
    int longest = 0;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const std::vector<double>& losses = devices[d].losses;
        if (losses.empty()) continue;
        QCPGraph* graph = plot->addGraph();
        // In lines, as under the bars: one long device name is wider than the chart at 1280 px.
        graph->setName(wrapped(device_label(devices[d].device)));
        // Later devices dashed, so curves that lie on top of each other stay visible as such.
        graph->setPen(QPen(palette_colour(static_cast<int>(d)), 2, d == 0 ? Qt::SolidLine : Qt::DashLine));
        for (std::size_t i = 0; i < losses.size(); ++i) {
            if (!std::isfinite(losses[i])) continue;
            graph->addData(static_cast<double>(i + 1), losses[i]);
            low = std::min(low, losses[i]);
            high = std::max(high, losses[i]);
        }
        graph->addToLegend();
        longest = std::max(longest, static_cast<int>(losses.size()));
    }
    plot->xAxis->setRange(1, std::max(longest, 2));
    if (low <= high)
        plot->yAxis->setRange(low - 0.05 * (high - low + 1e-9), high + 0.05 * (high - low + 1e-9));
    else
        plot->yAxis->setRange(0, 1);
    plot->replot();
}

}  // namespace bps::ui
