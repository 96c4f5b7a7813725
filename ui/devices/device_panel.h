#pragma once
// The device panel: the table of OpenCL devices, or the explanation of why there are none.
#include <QWidget>
#include <string>
#include <vector>

#include "engine/device/device_description.h"

class QLabel;
class QPushButton;
class QTableView;

namespace bps::ui {

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

    // What clearing the kernel cache did, or why it did not.
    void show_cache_status(const QString& text);

signals:
    // Clear Kernel Cache was pressed: the application empties the caches (or says why not).
    void clearCacheRequested();

private:
    QTableView* table_;
    QLabel* summary_;
    QPushButton* clear_cache_;
    QLabel* cache_status_;
};

}  // namespace bps::ui
