#pragma once
// The OpenCL devices as a table model: one row per device, the default one marked.
#include <QAbstractTableModel>
#include <vector>

#include "engine/device/device_description.h"

namespace bps::ui {

class DeviceListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Marker, Name, Kind, SelfTest, Kernels, ComputeUnits, Memory, OpenClC, Driver, Platform, ColumnCount };

    DeviceListModel(std::vector<device::DeviceDescription> devices, std::size_t default_index,
                    QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const device::DeviceDescription& device_at(int row) const { return devices_.at(static_cast<std::size_t>(row)); }
    // The device with this index is no longer skipped; false when no row has it.
    bool mark_enabled(std::size_t index);
    // The self-test of the device with this index ran again; false when no row has it.
    bool set_self_test(std::size_t index, device::SelfTestState state, const std::string& summary);
    // The kernels of the device with this index were tuned (device/kernel_tuning.h); false when no
    // row has it.
    bool set_tuning(std::size_t index, const device::KernelTuning& tuning, const std::string& summary);

private:
    std::vector<device::DeviceDescription> devices_;
    std::size_t default_index_;
};

}  // namespace bps::ui
