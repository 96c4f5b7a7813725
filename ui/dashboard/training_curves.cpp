#include "ui/dashboard/training_curves.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <string>

#include "ui/charts/legend_row.h"
#include "ui/dashboard/curve_smoothing.h"
#include "ui/dialog_folder.h"

namespace bps::ui {

namespace {

constexpr int replot_interval_ms = 33;  // at most ~30 replots a second
constexpr double max_slider_weight = 0.99;
constexpr int raw_alpha = 60;
constexpr double x_end_room = 0.015;  // a fraction of the x range, after the last point
const char* const hover_layer = "hover";
const char* const validation_layer = "validation";

bool finite(double value) {
    return std::isfinite(value);
}

QString number(double value, int digits = 4) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("-∞");
    return QString::number(value, 'g', digits);
}

QString curve_percent(double fraction) {
    if (!finite(fraction)) return number(fraction);
    return QString::number(fraction * 100, 'f', 1) + QStringLiteral(" %");
}

// Appends points already in order of position, so the container appends in O(k) instead of
// re-sorting; a chunk out of order (a run that went back in time) is merged the slow way.
void append(QCPGraph* graph, const QVector<QCPGraphData>& points) {
    if (points.isEmpty()) return;
    const bool sorted = std::is_sorted(points.begin(), points.end(),
                                       [](const QCPGraphData& a, const QCPGraphData& b) { return a.key < b.key; });
    graph->data()->add(points, sorted);
}

QPen pen(QColor colour, double width, Qt::PenStyle style = Qt::SolidLine, int alpha = 255) {
    colour.setAlpha(alpha);
    QPen result(colour, width, style);
    result.setCapStyle(Qt::FlatCap);
    return result;
}

}  // namespace

// A run's stored points, the smoothed lines kept beside them point for point (NaN where nothing
// is smoothed yet), and the graphs and items that draw them. `drawn_*` count the points already
// handed to the graphs; the rest are pending until the next replot.
struct TrainingCurves::Run {
    QString id, name;
    QColor colour;
    session::RunHistory history;
    std::vector<double> smoothed_loss, smoothed_accuracy;
    ExponentialSmoother loss_smoother, accuracy_smoother;
    std::size_t drawn_batches = 0, drawn_epochs = 0, drawn_markers = 0;

    QCPGraph* raw_loss = nullptr;
    QCPGraph* smoothed_loss_graph = nullptr;
    QCPGraph* validation_loss = nullptr;
    QCPGraph* train_accuracy = nullptr;
    QCPGraph* validation_accuracy = nullptr;
    QCPGraph* learning_rate = nullptr;
    QCPGraph* speed = nullptr;
    std::vector<QCPItemStraightLine*> marker_lines[plot_count];
    std::vector<QCPItemText*> marker_labels;

    void smooth_from_start(double weight) {
        loss_smoother = ExponentialSmoother(weight);
        accuracy_smoother = ExponentialSmoother(weight);
        smoothed_loss.clear();
        smoothed_accuracy.clear();
        smoothed_loss.reserve(history.batches.size());
        smoothed_accuracy.reserve(history.batches.size());
        for (const session::BatchPoint& point : history.batches) smooth(point);
    }
    void smooth(const session::BatchPoint& point) {
        smoothed_loss.push_back(loss_smoother.add(point.loss));
        smoothed_accuracy.push_back(accuracy_smoother.add(point.accuracy));
    }
    std::vector<QCPGraph*> graphs() const {
        return {raw_loss, smoothed_loss_graph, validation_loss, train_accuracy, validation_accuracy, learning_rate,
                speed};
    }
};

TrainingCurves::TrainingCurves(QWidget* parent) : QWidget(parent) {
    ask_save_path = [this](const QString& title, const QString& filter) {
        return QFileDialog::getSaveFileName(this, title, dialog_folder(this), filter);
    };
    show_error = [this](const QString& message) { QMessageBox::warning(this, tr("Export"), message); };

    auto* toolbar = new QHBoxLayout;
    toolbar->setContentsMargins(0, 0, 0, 0);
    toolbar->addWidget(new QLabel(tr("Smoothing"), this));
    smoothing_slider_ = new QSlider(Qt::Horizontal, this);
    smoothing_slider_->setObjectName(QStringLiteral("smoothing_slider"));
    smoothing_slider_->setRange(0, static_cast<int>(std::lround(max_slider_weight * 100)));
    smoothing_slider_->setValue(static_cast<int>(std::lround(smoothing_ * 100)));
    smoothing_slider_->setMaximumWidth(180);
    smoothing_slider_->setToolTip(tr("How much the loss and accuracy lines are smoothed (0 is the raw values)"));
    toolbar->addWidget(smoothing_slider_);
    smoothing_value_ = new QLabel(QString::number(smoothing_, 'f', 2), this);
    smoothing_value_->setMinimumWidth(smoothing_value_->fontMetrics().horizontalAdvance(QStringLiteral("0.000")));
    toolbar->addWidget(smoothing_value_);
    toolbar->addStretch(1);
    auto* fit_button = new QPushButton(tr("Fit"), this);
    fit_button->setToolTip(tr("Show every point again (or double-click a plot)"));
    auto* png_button = new QPushButton(tr("Export PNG…"), this);
    auto* csv_button = new QPushButton(tr("Export CSV…"), this);
    for (QPushButton* button : {fit_button, png_button, csv_button}) toolbar->addWidget(button);
    connect(smoothing_slider_, &QSlider::valueChanged, this, [this](int value) { set_smoothing(value / 100.0); });
    connect(fit_button, &QPushButton::clicked, this, &TrainingCurves::fit);
    connect(png_button, &QPushButton::clicked, this, &TrainingCurves::export_png_clicked);
    connect(csv_button, &QPushButton::clicked, this, &TrainingCurves::export_csv_clicked);

    grid_ = new QWidget(this);
    auto* grid = new QGridLayout(grid_);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    make_plot(loss, tr("Loss"), tr("cross-entropy"));
    make_plot(accuracy, tr("Accuracy"), tr("fraction correct"));
    make_plot(learning_rate, tr("Learning rate"), QString());
    make_plot(speed, tr("Images/s"), QString());
    for (int i = 0; i < plot_count; ++i) grid->addWidget(plots_[i], i / 2, i % 2);
    // The four share the space evenly, whatever their titles and tick labels ask for.
    for (int i = 0; i < 2; ++i) {
        grid->setColumnStretch(i, 1);
        grid->setRowStretch(i, 1);
    }

    // The legend is a row under the loss plot's title, not inside the plot, so it never hides a
    // curve or a marker's label.
    QCustomPlot* loss_plot = plots_[loss];
    QCPLegend* legend = legend_under_title(*loss_plot);
    legend->setVisible(false);
    legend->setWrap(3);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setMargins(QMargins(4, 0, 4, 0));
    QFont legend_font = font();
    legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
    legend->setFont(legend_font);

    empty_hint_ = new QCPItemText(loss_plot);
    empty_hint_->position->setType(QCPItemPosition::ptAxisRectRatio);
    empty_hint_->position->setCoords(0.5, 0.5);
    empty_hint_->setPositionAlignment(Qt::AlignCenter);
    empty_hint_->setText(tr("Press Train to see the network learn"));
    empty_hint_->setColor(QColor(120, 120, 120));
    QFont hint_font = font();
    hint_font.setPointSizeF(hint_font.pointSizeF() * 1.15);
    empty_hint_->setFont(hint_font);

    replot_timer_ = new QTimer(this);
    replot_timer_->setSingleShot(true);
    replot_timer_->setInterval(replot_interval_ms);
    connect(replot_timer_, &QTimer::timeout, this, &TrainingCurves::replot_now);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    layout->addWidget(grid_, 1);
    fit();
}

TrainingCurves::~TrainingCurves() = default;

void TrainingCurves::make_plot(PlotIndex index, const QString& title, const QString& y_label) {
    auto* plot = new QCustomPlot(grid_);
    plots_[index] = plot;
    static const char* const names[plot_count] = {"lossPlot", "accuracyPlot", "learningRatePlot", "speedPlot"};
    plot->setObjectName(QString::fromLatin1(names[index]));
    plot->setMinimumSize(160, 110);  // four fit a laptop's window with the editor docks beside them
    plot->setAutoAddPlottableToLegend(false);
    // Lines wider than a pixel drawn as one polyline make Qt's stroker work in O(n²) on a zig-zag
    // of 100,000 points (half a second a replot); drawn as segments they take milliseconds.
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot->setMouseTracking(true);
    default_left_margin_ = plot->axisRect()->minimumMargins().left();
    plot->installEventFilter(this);

    QFont title_font = font();
    title_font.setBold(true);
    plot->plotLayout()->insertRow(0);
    auto* heading = new QCPTextElement(plot, title, title_font);
    heading->setMargins(QMargins(0, 4, 0, 0));
    plot->plotLayout()->addElement(0, 0, heading);

    QFont tick_font = font();
    tick_font.setPointSizeF(tick_font.pointSizeF() * 0.85);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setTickLabelFont(tick_font);
        axis->setLabelFont(tick_font);
        axis->grid()->setPen(QPen(QColor(225, 225, 225), 0, Qt::SolidLine));
    }
    plot->xAxis->setLabel(tr("epoch"));
    plot->yAxis->setLabel(y_label);

    // Validation points are few and matter most: they stay above every run's batch lines.
    plot->addLayer(QString::fromLatin1(validation_layer), plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    // The hover line has its own buffer, so moving it redraws one line, not 100,000 points.
    plot->addLayer(QString::fromLatin1(hover_layer), plot->layer(QString::fromLatin1(validation_layer)),
                   QCustomPlot::limAbove);
    plot->layer(QString::fromLatin1(hover_layer))->setMode(QCPLayer::lmBuffered);
    auto* tracer = new QCPItemStraightLine(plot);
    tracer->setLayer(QString::fromLatin1(hover_layer));
    tracer->setPen(QPen(QColor(90, 90, 90, 160), 1, Qt::SolidLine));
    tracer->setSelectable(false);
    tracer->setVisible(false);
    tracers_[index] = tracer;

    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this, plot](const QCPRange&) {
        if (!fitting_) follow_ = false;
        sync_x_range(plot);
    });
    connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange&) {
        if (!fitting_) follow_ = false;
    });
    connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent* event) { show_hover(plot, event); });
    connect(plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { fit(); });
}

TrainingCurves::Run* TrainingCurves::find(const QString& id) const {
    for (const std::unique_ptr<Run>& run : runs_)
        if (run->id == id) return run.get();
    return nullptr;
}

void TrainingCurves::create_graphs(Run& run) {
    auto graph = [](QCustomPlot* plot, const QPen& line) {
        QCPGraph* created = plot->addGraph();
        created->setPen(line);
        created->setAdaptiveSampling(true);
        created->setSelectable(QCP::stNone);
        return created;
    };
    const QColor colour = run.colour;
    run.raw_loss = graph(plots_[loss], pen(colour, 1, Qt::SolidLine, raw_alpha));
    run.smoothed_loss_graph = graph(plots_[loss], pen(colour, 2));
    run.validation_loss = graph(plots_[loss], pen(colour, 1.5));
    run.validation_loss->setLineStyle(QCPGraph::lsNone);
    run.validation_loss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, pen(colour, 2), Qt::white, 8));
    run.train_accuracy = graph(plots_[accuracy], pen(colour, 2));
    run.validation_accuracy = graph(plots_[accuracy], pen(colour, 1.5, Qt::DashLine));
    run.validation_accuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, pen(colour, 2), Qt::white, 8));
    run.validation_loss->setLayer(QString::fromLatin1(validation_layer));
    run.validation_accuracy->setLayer(QString::fromLatin1(validation_layer));
    run.learning_rate = graph(plots_[learning_rate], pen(colour, 1.5));
    run.speed = graph(plots_[speed], pen(colour, 1.5));
    for (QCPGraph* created : run.graphs()) created->setName(run.name);
    run.drawn_batches = run.drawn_epochs = run.drawn_markers = 0;
}

void TrainingCurves::delete_graphs(Run& run) {
    for (QCPGraph* graph : run.graphs())
        if (graph) graph->parentPlot()->removeGraph(graph);
    for (int i = 0; i < plot_count; ++i) {
        for (QCPItemStraightLine* line : run.marker_lines[i]) plots_[i]->removeItem(line);
        run.marker_lines[i].clear();
    }
    for (QCPItemText* label : run.marker_labels) plots_[loss]->removeItem(label);
    run.marker_labels.clear();
}

void TrainingCurves::set_run(const QString& id, const QString& name, const QColor& colour,
                             const session::RunHistory& history) {
    Run* run = find(id);
    if (run) {
        delete_graphs(*run);
    } else {
        runs_.push_back(std::make_unique<Run>());
        run = runs_.back().get();
        run->id = id;
        if (!shown_.contains(id)) shown_.append(id);
    }
    run->name = name;
    run->colour = colour;
    run->history = history;
    run->smooth_from_start(smoothing_);
    create_graphs(*run);
    apply_visibility();
    schedule_replot();
}

void TrainingCurves::remove_run(const QString& id) {
    const auto found =
        std::find_if(runs_.begin(), runs_.end(), [&](const std::unique_ptr<Run>& run) { return run->id == id; });
    if (found == runs_.end()) return;
    delete_graphs(**found);
    runs_.erase(found);
    apply_visibility();
    schedule_replot();
}

bool TrainingCurves::has_run(const QString& id) const {
    return find(id) != nullptr;
}

void TrainingCurves::set_shown_runs(const QStringList& ids) {
    shown_ = ids;
    hide_hover();
    apply_visibility();
    schedule_replot();
}

QStringList TrainingCurves::shown_runs() const {
    QStringList shown;
    for (const std::unique_ptr<Run>& run : runs_)
        if (shown_.contains(run->id)) shown.append(run->id);
    return shown;
}

void TrainingCurves::rename_run(const QString& id, const QString& name) {
    Run* run = find(id);
    if (!run) return;
    run->name = name;
    for (QCPGraph* graph : run->graphs()) graph->setName(name);
    apply_visibility();  // the legend shows the new name
    schedule_replot();
}

// One legend entry per shown run (its smoothed loss line), in the order the runs were added.
void TrainingCurves::apply_visibility() {
    QCPLegend* legend = plots_[loss]->legend;
    legend->clearItems();
    bool any_shown = false;
    for (const std::unique_ptr<Run>& run : runs_) {
        const bool shown = shown_.contains(run->id);
        any_shown = any_shown || shown;
        for (QCPGraph* graph : run->graphs()) graph->setVisible(shown);
        for (auto& lines : run->marker_lines)
            for (QCPItemStraightLine* line : lines) line->setVisible(shown);
        for (QCPItemText* label : run->marker_labels) label->setVisible(shown);
        if (shown) run->smoothed_loss_graph->addToLegend(legend);
    }
    legend->setVisible(any_shown);
    empty_hint_->setVisible(!any_shown);
    unalign_plots();
}

void TrainingCurves::add_batch(const QString& id, const session::BatchPoint& point) {
    Run* run = find(id);
    if (!run) return;
    run->history.batches.push_back(point);
    run->smooth(point);
    schedule_replot();
}

void TrainingCurves::add_epoch(const QString& id, const session::EpochPoint& point) {
    Run* run = find(id);
    if (!run) return;
    run->history.epochs.push_back(point);
    schedule_replot();
}

void TrainingCurves::add_marker(const QString& id, const session::RunMarker& marker) {
    Run* run = find(id);
    if (!run) return;
    run->history.markers.push_back(marker);
    schedule_replot();
}

const session::RunHistory* TrainingCurves::history(const QString& id) const {
    const Run* run = find(id);
    return run ? &run->history : nullptr;
}

void TrainingCurves::set_smoothing(double weight) {
    if (!std::isfinite(weight)) return;
    weight = std::clamp(weight, 0.0, max_slider_weight);
    {
        const QSignalBlocker blocker(smoothing_slider_);
        smoothing_slider_->setValue(static_cast<int>(std::lround(weight * 100)));
    }
    smoothing_value_->setText(QString::number(weight, 'f', 2));
    if (weight == smoothing_) return;
    smoothing_ = weight;
    for (const std::unique_ptr<Run>& run : runs_) resmooth(*run);
    schedule_replot();
}

// A new weight changes every smoothed value, so the smoothed lines are rebuilt from the raw points
// (the only full recomputation; appends extend them from the smoothers' state).
void TrainingCurves::resmooth(Run& run) {
    run.smooth_from_start(smoothing_);
    QVector<QCPGraphData> loss_points, accuracy_points;
    loss_points.reserve(static_cast<qsizetype>(run.drawn_batches));
    accuracy_points.reserve(static_cast<qsizetype>(run.drawn_batches));
    for (std::size_t i = 0; i < run.drawn_batches; ++i) {
        const double position = run.history.batches[i].position;
        if (!finite(position)) continue;
        if (finite(run.smoothed_loss[i])) loss_points.append({position, run.smoothed_loss[i]});
        if (finite(run.smoothed_accuracy[i])) accuracy_points.append({position, run.smoothed_accuracy[i]});
    }
    run.smoothed_loss_graph->data()->set(loss_points, true);
    run.train_accuracy->data()->set(accuracy_points, true);
}

// Hands the pending points to the graphs; NaN and infinite values are left out, never drawn.
void TrainingCurves::flush(Run& run) {
    const std::vector<session::BatchPoint>& batches = run.history.batches;
    if (run.drawn_batches < batches.size()) {
        QVector<QCPGraphData> raw, smooth, train, rate, speed;
        for (std::size_t i = run.drawn_batches; i < batches.size(); ++i) {
            const session::BatchPoint& point = batches[i];
            const double x = point.position;
            if (!finite(x)) continue;
            if (finite(point.loss)) raw.append({x, point.loss});
            if (finite(run.smoothed_loss[i])) smooth.append({x, run.smoothed_loss[i]});
            if (finite(run.smoothed_accuracy[i])) train.append({x, run.smoothed_accuracy[i]});
            if (finite(point.learning_rate)) rate.append({x, point.learning_rate});
            if (finite(point.images_per_second)) speed.append({x, point.images_per_second});
        }
        append(run.raw_loss, raw);
        append(run.smoothed_loss_graph, smooth);
        append(run.train_accuracy, train);
        append(run.learning_rate, rate);
        append(run.speed, speed);
        run.drawn_batches = batches.size();
    }
    const std::vector<session::EpochPoint>& epochs = run.history.epochs;
    if (run.drawn_epochs < epochs.size()) {
        QVector<QCPGraphData> validation_loss, validation_accuracy;
        for (std::size_t i = run.drawn_epochs; i < epochs.size(); ++i) {
            const session::EpochPoint& point = epochs[i];
            if (!finite(point.position)) continue;
            if (point.validation_loss && finite(*point.validation_loss))
                validation_loss.append({point.position, *point.validation_loss});
            if (point.validation_accuracy && finite(*point.validation_accuracy))
                validation_accuracy.append({point.position, *point.validation_accuracy});
        }
        append(run.validation_loss, validation_loss);
        append(run.validation_accuracy, validation_accuracy);
        run.drawn_epochs = epochs.size();
    }
    const bool shown = shown_.contains(run.id);
    for (; run.drawn_markers < run.history.markers.size(); ++run.drawn_markers) {
        const session::RunMarker& marker = run.history.markers[run.drawn_markers];
        if (!finite(marker.position)) continue;
        add_marker_items(run, marker);
        for (auto& lines : run.marker_lines) lines.back()->setVisible(shown);
        run.marker_labels.back()->setVisible(shown);
    }
}

// A dashed vertical line in every plot, labelled in the loss plot near the top; successive labels
// step down so that markers close together stay readable.
void TrainingCurves::add_marker_items(Run& run, const session::RunMarker& marker) {
    for (int i = 0; i < plot_count; ++i) {
        auto* line = new QCPItemStraightLine(plots_[i]);
        line->point1->setCoords(marker.position, 0);
        line->point2->setCoords(marker.position, 1);
        line->setPen(pen(run.colour, 1, Qt::DashLine, 200));
        line->setSelectable(false);
        run.marker_lines[i].push_back(line);
    }
    auto* label = new QCPItemText(plots_[loss]);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    const double step = static_cast<double>(run.marker_labels.size() % 4);
    label->position->setCoords(marker.position, 0.03 + 0.08 * step);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setPadding(QMargins(3, 0, 0, 0));
    label->setText(QString::fromStdString(marker.text));
    label->setColor(run.colour.darker(130));
    QFont label_font = font();
    label_font.setPointSizeF(label_font.pointSizeF() * 0.8);
    label->setFont(label_font);
    label->setSelectable(false);
    run.marker_labels.push_back(label);
}

void TrainingCurves::schedule_replot() {
    if (!replot_timer_->isActive()) replot_timer_->start();
}

void TrainingCurves::replot_now() {
    replot_timer_->stop();
    for (const std::unique_ptr<Run>& run : runs_) flush(*run);
    if (follow_) rescale();
    replot_all();
}

void TrainingCurves::replot_all() {
    place_marker_labels();
    for (QCustomPlot* plot : plots_) plot->replot();
    align_plots();
}

// A marker's label reads to the right of its line, or to the left in the right half of the plot,
// so that a change near the end of a run is not cut off by the border.
void TrainingCurves::place_marker_labels() {
    const double middle = plots_[loss]->xAxis->range().center();
    for (const std::unique_ptr<Run>& run : runs_) {
        for (QCPItemText* label : run->marker_labels) {
            const bool left = label->position->coords().x() > middle;
            label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
            label->setPadding(left ? QMargins(0, 0, 3, 0) : QMargins(3, 0, 0, 0));
        }
    }
}

// The plots of a column share the x axis, so their axis rectangles start at the same x: the
// narrower left margin (shorter tick labels, no axis label) widens to the other's. Margins only
// grow between fits, so a live run's replots settle quickly and cost no second replot.
void TrainingCurves::align_plots() {
    for (int column = 0; column < 2; ++column) {
        QCustomPlot* top = plots_[column];
        QCustomPlot* bottom = plots_[column + 2];
        const int left = std::max(top->axisRect()->margins().left(), bottom->axisRect()->margins().left());
        for (QCustomPlot* plot : {top, bottom}) {
            if (plot->axisRect()->minimumMargins().left() == left) continue;
            QMargins margins = plot->axisRect()->minimumMargins();
            margins.setLeft(left);
            plot->axisRect()->setMinimumMargins(margins);
            if (plot->axisRect()->margins().left() != left) plot->replot();
        }
    }
}

void TrainingCurves::fit() {
    follow_ = true;
    unalign_plots();
    rescale();
    replot_all();
}

// The tick labels may have narrowed (a run hidden, a zoom reset): the margins may shrink again
// before the next alignment.
void TrainingCurves::unalign_plots() {
    for (QCustomPlot* plot : plots_) {
        QMargins margins = plot->axisRect()->minimumMargins();
        margins.setLeft(default_left_margin_);
        plot->axisRect()->setMinimumMargins(margins);
    }
}

// Every plot shows all points of the shown runs, over one shared x range, with a little room
// above and below so that no line runs along a border.
void TrainingCurves::rescale() {
    fitting_ = true;
    syncing_x_ = true;
    QCPRange x_range(0, 1);
    bool found_x = false;
    for (QCustomPlot* plot : plots_) {
        QCPRange y_range(0, 1);
        bool found_y = false;
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph* graph = plot->graph(i);
            if (!graph->visible()) continue;
            bool found = false;
            const QCPRange keys = graph->getKeyRange(found);
            if (found) {
                x_range =
                    found_x ? QCPRange(std::min(x_range.lower, keys.lower), std::max(x_range.upper, keys.upper)) : keys;
                found_x = true;
            }
            const QCPRange values = graph->getValueRange(found);
            if (found) {
                y_range = found_y
                              ? QCPRange(std::min(y_range.lower, values.lower), std::max(y_range.upper, values.upper))
                              : values;
                found_y = true;
            }
        }
        double span = y_range.size();
        if (span <= 0) span = std::max(std::abs(y_range.upper) * 0.2, 1e-9);
        double lower = y_range.lower - 0.06 * span, upper = y_range.upper + 0.06 * span;
        if (y_range.lower >= 0 && lower < 0) lower = 0;  // losses, rates and speeds are never negative
        // A rate or a speed reads against zero: a constant learning rate is a flat line, not noise
        // magnified to the axis's full height.
        if (plot == plots_[learning_rate] || plot == plots_[speed]) lower = 0;
        plot->yAxis->setRange(lower, upper);
    }
    if (!found_x || x_range.size() <= 0)
        x_range = found_x ? QCPRange(x_range.lower, x_range.lower + 1) : QCPRange(0, 1);
    x_range.upper += x_end_room * x_range.size();  // the last epoch's validation point is not cut in half
    for (QCustomPlot* plot : plots_) plot->xAxis->setRange(x_range);
    syncing_x_ = false;
    fitting_ = false;
}

void TrainingCurves::sync_x_range(QCustomPlot* source) {
    if (syncing_x_) return;
    syncing_x_ = true;
    const QCPRange range = source->xAxis->range();
    for (QCustomPlot* plot : plots_) {
        if (plot == source) continue;
        plot->xAxis->setRange(range);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
    place_marker_labels();
    syncing_x_ = false;
}

QString TrainingCurves::values_at(double position) const {
    QStringList lines;
    lines.append(tr("epoch %1").arg(QString::number(position, 'f', 2)));
    for (const std::unique_ptr<Run>& run_pointer : runs_) {
        const Run& run = *run_pointer;
        if (!shown_.contains(run.id)) continue;
        lines.append(run.name);
        const std::span<const session::BatchPoint> batches(run.history.batches);
        const std::span<const session::EpochPoint> epochs(run.history.epochs);
        const std::optional<std::size_t> batch = nearest_point(batches, position);
        const std::optional<std::size_t> epoch = nearest_point(epochs, position);
        if (batch) {
            const session::BatchPoint& point = batches[*batch];
            lines.append(tr("  loss %1 (smoothed %2)").arg(number(point.loss), number(run.smoothed_loss[*batch])));
            lines.append(tr("  accuracy %1 (smoothed %2)")
                             .arg(curve_percent(point.accuracy), curve_percent(run.smoothed_accuracy[*batch])));
        }
        if (epoch && (epochs[*epoch].validation_loss || epochs[*epoch].validation_accuracy)) {
            const session::EpochPoint& point = epochs[*epoch];
            const QString loss_text = point.validation_loss ? number(*point.validation_loss) : tr("none");
            const QString accuracy_text =
                point.validation_accuracy ? curve_percent(*point.validation_accuracy) : tr("none");
            lines.append(tr("  validation loss %1, accuracy %2 (epoch %3)")
                             .arg(loss_text, accuracy_text, QString::number(point.position, 'g', 4)));
        }
        if (batch) {
            const session::BatchPoint& point = batches[*batch];
            lines.append(tr("  learning rate %1").arg(number(point.learning_rate, 3)));
            lines.append(tr("  images/s %1")
                             .arg(finite(point.images_per_second) ? QString::number(point.images_per_second, 'f', 0)
                                                                  : number(point.images_per_second)));
        }
        if (!batch && !epoch) lines.append(tr("  no points here"));
    }
    return lines.join(QLatin1Char('\n'));
}

void TrainingCurves::show_hover(QCustomPlot* plot, QMouseEvent* event) {
    if (!plot->axisRect()->rect().contains(event->pos())) {
        hide_hover();
        return;
    }
    const double x = plot->xAxis->pixelToCoord(event->pos().x());
    for (int i = 0; i < plot_count; ++i) {
        tracers_[i]->point1->setCoords(x, 0);
        tracers_[i]->point2->setCoords(x, 1);
        tracers_[i]->setVisible(true);
        plots_[i]->layer(QString::fromLatin1(hover_layer))->replot();
    }
    QToolTip::showText(event->globalPosition().toPoint(), values_at(x), plot, plot->axisRect()->rect());
}

void TrainingCurves::hide_hover() {
    for (int i = 0; i < plot_count; ++i) {
        if (!tracers_[i]->visible()) continue;
        tracers_[i]->setVisible(false);
        plots_[i]->layer(QString::fromLatin1(hover_layer))->replot();
    }
    QToolTip::hideText();
}

bool TrainingCurves::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Leave && std::find(std::begin(plots_), std::end(plots_), watched) != std::end(plots_))
        hide_hover();
    return QWidget::eventFilter(watched, event);
}

QCPGraph* TrainingCurves::raw_loss_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->raw_loss : nullptr;
}
QCPGraph* TrainingCurves::smoothed_loss_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->smoothed_loss_graph : nullptr;
}
QCPGraph* TrainingCurves::validation_loss_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->validation_loss : nullptr;
}
QCPGraph* TrainingCurves::train_accuracy_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->train_accuracy : nullptr;
}
QCPGraph* TrainingCurves::validation_accuracy_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->validation_accuracy : nullptr;
}
QCPGraph* TrainingCurves::learning_rate_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->learning_rate : nullptr;
}
QCPGraph* TrainingCurves::speed_graph(const QString& id) const {
    const Run* run = find(id);
    return run ? run->speed : nullptr;
}

std::vector<QCPItemStraightLine*> TrainingCurves::marker_lines(const QString& id, const QCustomPlot* plot) const {
    const Run* run = find(id);
    const auto index = std::find(std::begin(plots_), std::end(plots_), plot) - std::begin(plots_);
    if (!run || index >= plot_count) return {};
    return run->marker_lines[index];
}

bool TrainingCurves::export_png(const QString& file, QString* error) const {
    // Pending points belong in the picture; drawing them changes nothing a caller can observe.
    const_cast<TrainingCurves*>(this)->replot_now();
    // On screen the plots are as large as the learner made them; hidden (or tiny) they get a size
    // that keeps their labels readable.
    const bool on_screen = isVisible() && plots_[0]->width() >= 300 && plots_[0]->height() >= 200;
    const int width = on_screen ? plots_[0]->width() : 640;
    const int height = on_screen ? plots_[0]->height() : 420;
    const int gap = 4;
    QImage image(2 * width + gap, 2 * height + gap, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        for (int i = 0; i < plot_count; ++i)
            painter.drawPixmap((i % 2) * (width + gap), (i / 2) * (height + gap), plots_[i]->toPixmap(width, height));
    }
    if (!image.save(file, "PNG")) {
        if (error) *error = tr("Could not write the image %1: check that its folder exists and is writable.").arg(file);
        return false;
    }
    return true;
}

bool TrainingCurves::export_csv(const QString& file, QString* error) const {
    std::string csv;
    std::string header;
    for (const std::unique_ptr<Run>& run : runs_) {
        if (!shown_.contains(run->id)) continue;
        std::string part = session::history_csv(run->name.toStdString(), run->history);
        // Each run's CSV opens with the same header; the file keeps only the first.
        const std::size_t line_end = part.find('\n');
        const std::string first_line = part.substr(0, line_end);
        if (header.empty()) {
            header = first_line;
        } else if (first_line == header) {
            part.erase(0, line_end == std::string::npos ? part.size() : line_end + 1);
        }
        csv += part;
    }
    if (csv.empty()) csv = session::history_csv(std::string(), {});
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(csv.data(), static_cast<qint64>(csv.size())) < 0 ||
        !out.commit()) {
        if (error)
            *error = tr("Could not write %1: %2. Check that its folder exists and is writable.")
                         .arg(file, out.errorString());
        return false;
    }
    return true;
}

void TrainingCurves::export_png_clicked() {
    QString file = ask_save_path(tr("Export the curves as an image"), tr("PNG images (*.png)"));
    if (file.isEmpty()) return;
    if (!file.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)) file += QStringLiteral(".png");
    QString error;
    if (!export_png(file, &error)) show_error(error);
}

void TrainingCurves::export_csv_clicked() {
    QString file = ask_save_path(tr("Export the curves' points as CSV"), tr("CSV files (*.csv)"));
    if (file.isEmpty()) return;
    if (!file.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) file += QStringLiteral(".csv");
    QString error;
    if (!export_csv(file, &error)) show_error(error);
}

}  // namespace bps::ui
