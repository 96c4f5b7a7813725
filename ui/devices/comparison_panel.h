#pragma once
// The device comparison panel: the learner ticks devices, picks the network (the current project
// or a reference network), and presses Compare; the same network then trains on each device in
// turn, in the background, with progress and Cancel. The results show side by side as a table and
// charts (ui/devices/comparison_charts.h), and every run is kept with its date, drivers and
// project, so a later run can be set beside an earlier one; all of them export to CSV.
//
// The panel only shows and asks: compareRequested() and cancelRequested() go to the application
// (app/gui/comparison_controller.h), which runs the comparison on a worker thread and hands back
// progress, results and the kept history.
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

#include "engine/compare/comparison_history.h"
#include "engine/device/device_description.h"
#include "engine/device/self_test.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace bps::ui {

class ComparisonCharts;

struct ComparisonRequest {
    std::vector<std::size_t> devices;  // DeviceDescription::index of the ticked devices, in list order
    QString network;                   // "project" for the current project, or "mlp", "cnn", "cifar"
    int batch_size = 64;
    int curve_batches = 50;
    bool device_figures = true;  // bandwidth, SGEMM and launch latency
    bool first_batch = true;     // cold and warm start (the command line starts twice per device)
};

class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr const char* current_project = "project";

    explicit ComparisonPanel(std::vector<device::DeviceDescription> devices, QWidget* parent = nullptr);

    ComparisonRequest request() const;

    // While running: Compare and the choices are disabled, Cancel and the progress bar shown.
    void set_running(bool running);
    void show_progress(const bench::ComparisonProgress& progress);
    // A device's result during a run: added to the table and charts at once.
    void add_device_result(const bench::DeviceComparison& result);
    // The kept runs, oldest first; shows the one at `shown` (the newest after a run).
    void set_history(std::vector<bench::ComparisonRecord> records, int shown);
    // A self-test of a listed device ended (at start-up, before a training, on the Devices tab): the
    // device list says so, and so does the table where it shows that device untested. One that
    // could not finish changes nothing.
    void show_self_test(std::size_t device_index, const device::SelfTestResult& result);
    // A problem or note under the buttons ("the project cannot be built: ...").
    void show_message(const QString& text);

    // Where Export CSV writes; replaced by tests (default: a save dialog). Empty: cancelled.
    std::function<QString()> ask_csv_path;

    QListWidget* device_list() const { return devices_; }
    QComboBox* network_choice() const { return network_; }
    QSpinBox* batch_size() const { return batch_size_; }
    QSpinBox* curve_batches() const { return curve_batches_; }
    QCheckBox* device_figures() const { return device_figures_; }
    QCheckBox* first_batch() const { return first_batch_; }
    QPushButton* compare_button() const { return compare_; }
    QPushButton* cancel_button() const { return cancel_; }
    QProgressBar* progress_bar() const { return progress_; }
    QLabel* status() const { return status_; }
    QComboBox* history_choice() const { return history_; }
    QLabel* run_heading() const { return heading_; }
    QPushButton* export_button() const { return export_; }
    QTableWidget* table() const { return table_; }
    ComparisonCharts* charts() const { return charts_; }

    enum Column {
        device_column,
        driver_column,
        self_test_column,
        images_column,
        step_column,
        cold_column,
        warm_column,
        copy_column,
        sgemm_column,
        step_gb_column,
        step_gflops_column,
        of_sgemm_column,
        of_bandwidth_column,
        memory_column,
        kernels_column,
        final_loss_column,
        problem_column,
        column_count
    };

signals:
    void compareRequested(const bps::ui::ComparisonRequest& request);
    void cancelRequested();

private:
    void update_compare_button();
    void show_record(int index);
    void show_devices(const std::vector<bench::DeviceComparison>& devices);
    device::SelfTestState latest_self_test(const device::DeviceDescription& compared) const;
    void export_csv();

    QListWidget* devices_;
    QComboBox* network_;
    QSpinBox* batch_size_;
    QSpinBox* curve_batches_;
    QCheckBox* device_figures_;
    QCheckBox* first_batch_;
    QPushButton* compare_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* status_;
    QComboBox* history_;
    QLabel* heading_;
    QPushButton* export_;
    QTableWidget* table_;
    ComparisonCharts* charts_;
    bool running_ = false;
    std::vector<bench::ComparisonRecord> records_;
    std::vector<bench::DeviceComparison> live_;      // the run in progress
    std::vector<device::DeviceDescription> listed_;  // the devices, with their latest self-test
};

}  // namespace bps::ui
