#pragma once
// The weights and gradients of each layer over the epochs, as TensorBoard's histograms overlay
// them, and what they say about learning: the chosen parameter's histograms (the chosen epoch bold,
// earlier epochs thin, light for early and dark for late), and every layer's gradient size against
// the epoch on a log scale, where vanishing gradients (the first layers' far below the last ones')
// and exploding ones (a layer's growing a hundredfold) show, with a caption that says so in words.
// It only shows the plain values it is given (session::ValueFigures per epoch); it computes none.
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "engine/runs/inside_figures.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QLabel;
class QStackedWidget;

namespace bps::ui {

class ParameterHistograms : public QWidget {
    Q_OBJECT
public:
    // One epoch of one parameter: its weights after that epoch, and the gradients of its last
    // batch (none at epoch 0, before any batch).
    struct EpochFigures {
        int epoch = 0;
        session::ValueFigures weights;
        std::optional<session::ValueFigures> gradients;
    };
    struct ParameterHistory {
        QString parameter;                 // "conv1.weight"
        std::vector<EpochFigures> epochs;  // in order of epoch
    };

    // The finding is stated when the smallest layer's gradient size at the chosen epoch is below
    // this share of the largest's...
    static constexpr double vanishing_ratio = 1.0 / 100;
    // ... or when a layer's gradient size grew at least this many times over the shown epochs.
    static constexpr double exploding_growth = 100;

    explicit ParameterHistograms(QWidget* parent = nullptr);

    // `all`: every layer's weight parameter, in execution order. The chosen parameter's epochs up
    // to `chosen_epoch` are drawn (the latest of them bold); a parameter that is not in `all`
    // falls back to the first one. No parameters clear the charts with a reason.
    void set_histories(std::vector<ParameterHistory> all, QString chosen_parameter, int chosen_epoch);
    // Empties the charts and shows `reason` in their place ("This run has no replay").
    void clear(const QString& reason);

    // What is shown, for tests and the panel.
    QString chosen_parameter() const { return chosen_parameter_; }
    int chosen_epoch() const { return chosen_epoch_; }
    QString reason() const;  // empty while the charts show
    // The caption under the gradient sizes: the vanishing or exploding gradients in words, or empty.
    QString finding() const { return finding_; }
    // The drawn histogram of the chosen parameter at `epoch` (its counts, bin by bin, and the bins'
    // centres); empty when that epoch is not drawn.
    std::vector<double> weights_curve(int epoch) const;
    std::vector<double> gradients_curve(int epoch) const;
    std::vector<double> weights_bin_centres(int epoch) const;
    // The epochs drawn in each histogram, in drawing order (the bold one last), and the bold one
    // (-1 for none).
    std::vector<int> weights_epochs() const;
    std::vector<int> gradients_epochs() const;
    int bold_weights_epoch() const;
    int bold_gradients_epoch() const;
    // A parameter's gradient sizes (the deviation, one per epoch with gradients) as drawn in the
    // gradient size chart, and the epochs they are at; empty for a parameter not drawn.
    std::vector<double> gradient_sizes(const QString& parameter) const;
    std::vector<double> gradient_size_epochs(const QString& parameter) const;
    int gradient_size_line_count() const;

    QCustomPlot* weights_plot() const { return weights_plot_; }
    QCustomPlot* gradients_plot() const { return gradients_plot_; }
    QCustomPlot* gradient_size_plot() const { return sizes_plot_; }
    QCPItemStraightLine* chosen_epoch_line() const { return chosen_line_; }
    QCPItemText* chosen_epoch_label() const { return chosen_label_; }  // "epoch 3" beside the line
    QLabel* finding_label() const { return finding_label_; }

signals:
    // The learner clicked a layer's line in the gradient sizes, or its name in their legend.
    void parameterChosen(const QString& parameter);

private:
    struct DrawnCurve {
        int epoch;
        QCPGraph* graph;
    };
    struct SizeLine {
        QString parameter;
        QCPGraph* graph;
    };

    QCustomPlot* make_plot(const QString& object_name);
    void draw_histograms(const ParameterHistory& history);
    void draw_overlay(QCustomPlot* plot, std::vector<DrawnCurve>& drawn, const ParameterHistory& history,
                      bool gradients, const QString& title);
    void draw_gradient_sizes();
    void fit_size_legend();
    QString find_finding() const;
    const DrawnCurve* drawn(const std::vector<DrawnCurve>& curves, int epoch) const;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void choose(const QCPAbstractPlottable* line);

    std::vector<ParameterHistory> all_;
    QString chosen_parameter_;
    int chosen_epoch_ = 0;
    QString finding_;

    QStackedWidget* pages_ = nullptr;
    QLabel* reason_label_ = nullptr;
    QCustomPlot* weights_plot_ = nullptr;
    QCustomPlot* gradients_plot_ = nullptr;
    QCustomPlot* sizes_plot_ = nullptr;
    QCPItemStraightLine* chosen_line_ = nullptr;
    QCPItemText* chosen_label_ = nullptr;
    QLabel* finding_label_ = nullptr;
    std::vector<DrawnCurve> weights_drawn_, gradients_drawn_;
    std::vector<SizeLine> size_lines_;
};

}  // namespace bps::ui
