#pragma once
// The catalogue as a table model: one row per dataset, with whether it is on this computer.
#include <QAbstractTableModel>
#include <filesystem>
#include <vector>

#include "datasets/catalogue.h"

namespace bps::ui {

class DatasetListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Title, Images, ImageSize, Classes, State, ColumnCount };

    DatasetListModel(std::vector<datasets::CatalogueEntry> entries, std::filesystem::path user_root,
                     QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const datasets::CatalogueEntry& entry(int row) const { return entries_.at(static_cast<std::size_t>(row)); }
    const datasets::LocalState& state(int row) const { return states_.at(static_cast<std::size_t>(row)); }
    const std::filesystem::path& user_root() const { return user_root_; }

    // Looks at the disk again (after a download, or files copied in by hand).
    void refresh();

    // "Ready", "Not downloaded (30.9 MB)", "Partly downloaded (12.0 of 30.9 MB)", ...
    static QString state_text(const datasets::CatalogueEntry& entry, const datasets::LocalState& state);

private:
    std::vector<datasets::CatalogueEntry> entries_;
    std::filesystem::path user_root_;
    std::vector<datasets::LocalState> states_;
};

}  // namespace bps::ui
