#pragma once
// The per-class table's rows, one per class in class order: the class's name, precision, recall,
// F1 (shown with 3 decimals) and support (shown as "1,000"), each also as a number under
// ClassFiguresTable::sort_role so a sort compares numbers, not text.
#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "engine/runs/confusion_matrix.h"

namespace bps::ui {

class ClassFiguresModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    void set_figures(std::vector<session::ClassFigures> figures, std::vector<std::size_t> predicted, QStringList names);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<session::ClassFigures> figures_;
    std::vector<std::size_t> predicted_;  // how many samples were taken for each class
    QStringList names_;
};

}  // namespace bps::ui
