#include "ui/datasets/dataset_list_model.h"

#include <QString>

namespace bps::ui {

namespace {

// Decimal units, as download sites state sizes; both numbers in the unit of the larger one
// so "12.0 of 30.9 MB" reads at a glance.
QString in_unit_of(std::uint64_t bytes, std::uint64_t reference) {
    if (reference < 1'000'000) return QString::number((bytes + 500) / 1000);
    return QString::number(static_cast<double>(bytes) / 1e6, 'f', 1);
}

QString unit_of(std::uint64_t reference) {
    return reference < 1'000'000 ? "kB" : "MB";
}

QString readable_size(std::uint64_t bytes) {
    return in_unit_of(bytes, bytes) + " " + unit_of(bytes);
}

}  // namespace

DatasetListModel::DatasetListModel(std::vector<datasets::CatalogueEntry> entries, std::filesystem::path user_root,
                                   QObject* parent)
    : QAbstractTableModel(parent), entries_(std::move(entries)), user_root_(std::move(user_root)) {
    for (const datasets::CatalogueEntry& entry : entries_) states_.push_back(datasets::local_state(entry, user_root_));
}

int DatasetListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int DatasetListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString DatasetListModel::state_text(const datasets::CatalogueEntry& entry, const datasets::LocalState& state) {
    const std::uint64_t total = entry.download_bytes();
    switch (state.availability) {
        case datasets::Availability::ready:
            return tr("Ready");
        case datasets::Availability::needs_unpacking:
            return tr("Downloaded, unpacked on first use");
        case datasets::Availability::partly_downloaded:
            return tr("Partly downloaded (%1 of %2 %3)")
                .arg(in_unit_of(state.bytes_present, total), in_unit_of(total, total), unit_of(total));
        case datasets::Availability::missing:
            break;
    }
    return tr("Not downloaded (%1)").arg(readable_size(total));
}

QVariant DatasetListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const datasets::CatalogueEntry& shown = entry(index.row());
    if (role == Qt::ToolTipRole) {
        if (index.column() == State) return QString::fromStdString(state(index.row()).folder.string());
        return QString::fromStdString(shown.description);
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Title:
            return QString::fromStdString(shown.title);
        case Images:
            return QString("%1 + %2").arg(shown.train_count).arg(shown.test_count);
        case ImageSize:
            return QString::fromStdString(shown.shape.to_string());
        case Classes:
            return static_cast<qulonglong>(shown.class_count);
        case State:
            return state_text(shown, state(index.row()));
        default:
            return {};
    }
}

QVariant DatasetListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Title:
            return tr("Dataset");
        case Images:
            return tr("Images (train + test)");
        case ImageSize:
            return tr("Image size");
        case Classes:
            return tr("Classes");
        case State:
            return tr("State");
        default:
            return {};
    }
}

void DatasetListModel::refresh() {
    for (std::size_t row = 0; row < entries_.size(); ++row)
        states_[row] = datasets::local_state(entries_[row], user_root_);
    if (!entries_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

}  // namespace bps::ui
