#pragma once
// The device panel: the table of OpenCL devices, or the explanation of why there are none.
#include <QWidget>
#include <string>
#include <vector>

#include "engine/device/device_description.h"

class QLabel;
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

private:
    QTableView* table_;
    QLabel* summary_;
};

}  // namespace bps::ui
