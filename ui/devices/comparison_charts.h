#pragma once
// The device comparison's charts (QCustomPlot): bars side by side for images/s, time to the first
// batch, bandwidth, GFLOP/s and the share of the device's peak, one group per device, and the loss
// curves of the runs overlaid. Only paints what it is given.
#include <QString>
#include <QWidget>
#include <array>
#include <vector>

#include "engine/compare/device_comparison.h"

class QCustomPlot;
class QLabel;

namespace bps::ui {

class ComparisonCharts : public QWidget {
    Q_OBJECT
public:
    enum Chart { images_per_s, first_batch, bandwidth, gflops, peak_share, loss, chart_count };

    explicit ComparisonCharts(QWidget* parent = nullptr);

    // Replaces what is shown; no devices: empty charts with a hint.
    void show_results(const std::vector<bench::DeviceComparison>& devices);

    QCustomPlot* plot(Chart chart) const { return plots_[chart]; }
    // How each device is named under its bars and in the loss curve's legend: "0: pthread-cpu".
    static QString device_label(const device::DeviceDescription& device);
    // The sentence shown over the empty cold and warm start chart ("The first batch was not timed:
    // ..."); nullptr while that chart has times or nothing to explain.
    QLabel* chart_reason() const;

private:
    struct Series {
        QString name;
        std::vector<double> values;  // per device; NaN where there is none (not measured, failed)
    };
    QCustomPlot* make_plot(const QString& title, const QString& unit);
    void show_bars(Chart chart, const QStringList& devices, const std::vector<Series>& series, int decimals);
    void show_losses(const std::vector<bench::DeviceComparison>& devices);
    void show_reason(const std::vector<bench::DeviceComparison>& devices);
    void fit_legend(QCustomPlot* plot);
    void place_reason();
    bool eventFilter(QObject* watched, QEvent* event) override;

    std::array<QCustomPlot*, chart_count> plots_{};
    QLabel* reason_ = nullptr;
};

}  // namespace bps::ui
