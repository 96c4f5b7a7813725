#include "ui/devices/device_list_model.h"

#include <QColor>
#include <QFont>
#include <QLocale>

namespace bps::ui {

DeviceListModel::DeviceListModel(std::vector<device::DeviceDescription> devices, std::size_t default_index,
                                 QObject* parent)
    : QAbstractTableModel(parent), devices_(std::move(devices)), default_index_(default_index) {}

int DeviceListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(devices_.size());
}

int DeviceListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeviceListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const device::DeviceDescription& device = devices_[static_cast<std::size_t>(index.row())];
    const bool is_default = device.index == default_index_;
    if (role == Qt::FontRole && is_default) {
        QFont font;
        font.setBold(true);
        return font;
    }
    const bool skipped = !device.skipped.empty();
    if (role == Qt::ToolTipRole && skipped)
        return tr("Skipped: %1, or select it here and press Use Again.").arg(QString::fromStdString(device.skipped));
    const bool wrong = device.self_test == device::SelfTestState::wrong_results;
    if (role == Qt::ToolTipRole && index.column() == SelfTest)
        return device.self_test == device::SelfTestState::not_run
                   ? tr("The self-test runs before this device's first training (or: backprop devices --check).")
                   : QString::fromStdString(wrong ? device::wrong_results_warning(device) : device.self_test_summary);
    if (role == Qt::ForegroundRole && index.column() == SelfTest && wrong) return QColor(Qt::red);
    if (role == Qt::ToolTipRole && index.column() == Kernels)
        return device.tuning_summary.empty()
                   ? tr("The tiles of the engine's own kernels as the source sets them. The device's first warm-up "
                        "times the variants and keeps the fastest (or: backprop cache warm).")
                   : tr("Tuned: %1").arg(QString::fromStdString(device.tuning_summary));
    if (role == Qt::ToolTipRole && is_default)
        return tr("Training uses this device unless you choose another (--device or BACKPROP_DEVICE).");
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Marker:
            return skipped ? tr("skipped") : wrong ? tr("wrong results") : is_default ? tr("default") : QString();
        case Name:
            return QString::fromStdString(device.name);
        case Kind:
            return QString::fromUtf8(device::kind_name(device.kind).data(),
                                     static_cast<qsizetype>(device::kind_name(device.kind).size()));
        case ComputeUnits:
            return device.compute_units;
        case Memory:
            return QLocale().formattedDataSize(static_cast<qint64>(device.global_memory_bytes), 1,
                                               QLocale::DataSizeTraditionalFormat);
        case OpenClC:
            return QString::fromStdString(device.opencl_c_version);
        case Driver:
            return QString::fromStdString(device.driver_version);
        case SelfTest:
            return device.self_test == device::SelfTestState::passed ? tr("passed")
                   : wrong                                           ? tr("WRONG RESULTS")
                                                                     : tr("not run yet");
        case Kernels:
            return device.tuning_summary.empty()
                       ? tr("%1 (not tuned yet)").arg(QString::fromStdString(device.tuning.describe(device.kind)))
                       : QString::fromStdString(device.tuning.describe(device.kind));
        case Platform:
            return QString::fromStdString(device.platform_name);
        default:
            return {};
    }
}

bool DeviceListModel::mark_enabled(std::size_t index) {
    for (std::size_t row = 0; row < devices_.size(); ++row) {
        if (devices_[row].index != index) continue;
        devices_[row].skipped.clear();
        emit dataChanged(this->index(static_cast<int>(row), 0), this->index(static_cast<int>(row), ColumnCount - 1));
        return true;
    }
    return false;
}

bool DeviceListModel::set_self_test(std::size_t index, device::SelfTestState state, const std::string& summary) {
    for (std::size_t row = 0; row < devices_.size(); ++row) {
        if (devices_[row].index != index) continue;
        devices_[row].self_test = state;
        devices_[row].self_test_summary = summary;
        emit dataChanged(this->index(static_cast<int>(row), 0), this->index(static_cast<int>(row), ColumnCount - 1));
        return true;
    }
    return false;
}

bool DeviceListModel::set_tuning(std::size_t index, const device::KernelTuning& tuning, const std::string& summary) {
    for (std::size_t row = 0; row < devices_.size(); ++row) {
        if (devices_[row].index != index) continue;
        devices_[row].tuning = tuning;
        devices_[row].tuning_summary = summary;
        emit dataChanged(this->index(static_cast<int>(row), Kernels), this->index(static_cast<int>(row), Kernels));
        return true;
    }
    return false;
}

QVariant DeviceListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Marker:
            return QString();
        case Name:
            return tr("Device");
        case Kind:
            return tr("Kind");
        case ComputeUnits:
            return tr("Compute units");
        case Memory:
            return tr("Memory");
        case OpenClC:
            return tr("OpenCL C");
        case Driver:
            return tr("Driver");
        case SelfTest:
            return tr("Self-test");
        case Kernels:
            return tr("Kernel tiles");
        case Platform:
            return tr("Platform");
        default:
            return {};
    }
}

}  // namespace bps::ui
