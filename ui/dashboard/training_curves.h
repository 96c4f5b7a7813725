#pragma once
// The dashboard's curves, as TensorBoard draws them: four plots in a 2x2 grid (loss, accuracy,
// learning rate, images/s) over a fractional epoch axis, one colour per run, so a live run and the
// ticked finished runs overlay. The loss shows each batch point faint and its smoothed line solid
// (the smoothing slider above the plots), validation figures as points per epoch, and markers where
// a setting changed. Zoom and pan keep the four x axes together; hovering names every shown run's
// figures at that epoch; Export writes the plots as one PNG or the points as CSV.
//
// Points arrive faster than a screen refreshes, so add_batch/add_epoch only store them: a 33 ms
// single-shot timer draws what is pending, at most ~30 times a second. Appending is O(1) per point
// (sorted appends to the graphs' data, the smoothed line extended from its running state), and the
// graphs decimate for drawing, so 100,000 points still redraw smoothly.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "engine/runs/run_record.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QLabel;
class QMouseEvent;
class QPushButton;
class QSlider;
class QTimer;

namespace bps::ui {

class TrainingCurves : public QWidget {
    Q_OBJECT
public:
    explicit TrainingCurves(QWidget* parent = nullptr);
    ~TrainingCurves() override;

    // Adds a run, or replaces the one with this id (its curves redrawn from `history`, its place in
    // the legend kept). A new run is shown until set_shown_runs says otherwise.
    void set_run(const QString& id, const QString& name, const QColor& colour, const session::RunHistory& history = {});
    void remove_run(const QString& id);
    bool has_run(const QString& id) const;
    // Only these runs are drawn, listed in the legend and named in the hover text.
    void set_shown_runs(const QStringList& ids);
    // The shown runs that exist, in the order the runs were added.
    QStringList shown_runs() const;
    void rename_run(const QString& id, const QString& name);

    // A live run's points, in order of position; ignored for a run that was not set.
    void add_batch(const QString& id, const session::BatchPoint& point);
    void add_epoch(const QString& id, const session::EpochPoint& point);
    void add_marker(const QString& id, const session::RunMarker& marker);

    // The smoothing weight of the loss and train accuracy lines, 0 (raw) to 0.99; the slider shows it.
    void set_smoothing(double weight);
    double smoothing() const { return smoothing_; }

    // Everything a run has reported; nullptr for an unknown id.
    const session::RunHistory* history(const QString& id) const;
    // The hover text at an epoch position: for every shown run its name, loss (raw and smoothed),
    // accuracy, validation figures, learning rate and images/s at the nearest points.
    QString values_at(double position) const;

    // The four plots in one image, as laid out on screen. On failure `error` says why.
    bool export_png(const QString& file, QString* error) const;
    // Every shown run's points (session::history_csv), one header. On failure `error` says why.
    bool export_csv(const QString& file, QString* error) const;

    // Draws what is pending at once instead of at the next timer tick (tests, the end of a run).
    void replot_now();
    // Shows all points of the shown runs again after a zoom or pan, and follows new points.
    void fit();

    QCustomPlot* loss_plot() const { return plots_[loss]; }
    QCustomPlot* accuracy_plot() const { return plots_[accuracy]; }
    QCustomPlot* learning_rate_plot() const { return plots_[learning_rate]; }
    QCustomPlot* speed_plot() const { return plots_[speed]; }
    QSlider* smoothing_slider() const { return smoothing_slider_; }
    // The centred "Press Train" hint of the loss plot, visible while no run is shown.
    QCPItemText* empty_hint() const { return empty_hint_; }

    // The run's graphs, for tests and the window; nullptr for an unknown id.
    QCPGraph* raw_loss_graph(const QString& id) const;
    QCPGraph* smoothed_loss_graph(const QString& id) const;
    QCPGraph* validation_loss_graph(const QString& id) const;
    QCPGraph* train_accuracy_graph(const QString& id) const;
    QCPGraph* validation_accuracy_graph(const QString& id) const;
    QCPGraph* learning_rate_graph(const QString& id) const;
    QCPGraph* speed_graph(const QString& id) const;
    // The run's marker lines in `plot` (one per marker), in the order they were added.
    std::vector<QCPItemStraightLine*> marker_lines(const QString& id, const QCustomPlot* plot) const;

    // Asks where to save (a QFileDialog by default); an empty string means cancelled. Tests replace it.
    std::function<QString(const QString& title, const QString& filter)> ask_save_path;
    // Tells the learner an export failed (a QMessageBox by default). Tests replace it.
    std::function<void(const QString& message)> show_error;

private:
    enum PlotIndex { loss, accuracy, learning_rate, speed, plot_count };
    struct Run;

    void make_plot(PlotIndex index, const QString& title, const QString& y_label);
    Run* find(const QString& id) const;
    void create_graphs(Run& run);
    void delete_graphs(Run& run);
    void add_marker_items(Run& run, const session::RunMarker& marker);
    void apply_visibility();
    void flush(Run& run);
    void resmooth(Run& run);
    void schedule_replot();
    void replot_all();
    void place_marker_labels();
    void align_plots();
    void unalign_plots();
    void rescale();
    void sync_x_range(QCustomPlot* source);
    void show_hover(QCustomPlot* plot, QMouseEvent* event);
    void hide_hover();
    void export_png_clicked();
    void export_csv_clicked();
    bool eventFilter(QObject* watched, QEvent* event) override;

    QCustomPlot* plots_[plot_count] = {};
    QCPItemStraightLine* tracers_[plot_count] = {};
    QCPItemText* empty_hint_ = nullptr;
    QWidget* grid_ = nullptr;
    QSlider* smoothing_slider_ = nullptr;
    QLabel* smoothing_value_ = nullptr;
    QTimer* replot_timer_ = nullptr;
    std::vector<std::unique_ptr<Run>> runs_;
    QStringList shown_;
    double smoothing_ = 0.6;
    bool follow_ = true;      // rescale to all points at each replot, until the learner zooms or pans
    bool syncing_x_ = false;  // one x-range change at a time across the plots
    bool fitting_ = false;
    int default_left_margin_ = 0;  // our own rescale does not count as the learner's zoom
};

}  // namespace bps::ui
