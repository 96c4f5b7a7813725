#pragma once
// The device panel: the table of OpenCL devices, or the explanation of why there are none.
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/device/self_test.h"
#include "engine/device/tuning_record.h"

class QLabel;
class QPushButton;
class QTableView;

namespace bps::ui {

class DeviceListModel;

class DevicePanel : public QWidget {
    Q_OBJECT
public:
    // problem: empty when discovery worked; else the text to show instead of the table.
    DevicePanel(std::vector<device::DeviceDescription> devices, std::size_t default_index, const std::string& problem,
                QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    QLabel* summary() const { return summary_; }
    QPushButton* clear_cache_button() const { return clear_cache_; }
    QLabel* cache_status() const { return cache_status_; }
    // Enabled while the selected device is one the start-up crash guard skips.
    QPushButton* use_again_button() const { return use_again_; }
    // Runs the selected device's self-test now (enabled for a usable device, while none runs).
    QPushButton* self_test_button() const { return self_test_; }

    // What clearing the kernel cache did, or why it did not; also what Use Again did.
    void show_cache_status(const QString& text);
    // The device with this index is no longer skipped (the application enabled it).
    void mark_enabled(std::size_t device_index);
    // While a self-test runs: its button disabled and what runs said.
    void set_self_testing(bool running);
    // A self-test of the device with this index ended: its row and the status line show how.
    void show_self_test(std::size_t device_index, const device::SelfTestResult& result);
    // The warm-up tuned the device's kernels: its row's Kernel tiles column shows the choice.
    void show_tuning(std::size_t device_index, const device::TuningRecord& record);
    // The listed device with this index; nullopt when none has it.
    std::optional<device::DeviceDescription> device_with_index(std::size_t device_index) const;

signals:
    // Clear Kernel Cache was pressed: the application empties the caches (or says why not).
    void clearCacheRequested();
    // Use Again was pressed for the skipped device with this index.
    void enableDeviceRequested(int device_index);
    // Run Self-Test was pressed for the device with this index.
    void selfTestRequested(int device_index);

private:
    void selection_changed();
    void show_summary();

    QTableView* table_;
    QLabel* summary_;
    QPushButton* clear_cache_;
    QPushButton* use_again_;
    QPushButton* self_test_;
    bool self_testing_ = false;
    QLabel* cache_status_;
    DeviceListModel* model_ = nullptr;
    std::size_t default_index_ = 0;
};

}  // namespace bps::ui
