#include "ui/results/class_figures_model.h"

#include "engine/base/number_text.h"
#include "ui/results/class_figures_table.h"

namespace bps::ui {

void ClassFiguresModel::set_figures(std::vector<session::ClassFigures> figures, std::vector<std::size_t> predicted,
                                    QStringList names) {
    beginResetModel();
    figures_ = std::move(figures);
    predicted_ = std::move(predicted);
    names_ = std::move(names);
    endResetModel();
}

int ClassFiguresModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(figures_.size());
}

int ClassFiguresModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ClassFiguresTable::column_count;
}

QVariant ClassFiguresModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const int row = index.row();
    const session::ClassFigures& f = figures_[static_cast<std::size_t>(row)];
    const auto figure = [&]() -> double {
        switch (index.column()) {
            case ClassFiguresTable::precision_column:
                return f.precision;
            case ClassFiguresTable::recall_column:
                return f.recall;
            default:
                return f.f1;
        }
    };
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case ClassFiguresTable::class_column:
                    return names_.value(row);
                case ClassFiguresTable::support_column:
                    return QString::fromStdString(session::format_thousands(f.support));
                default:
                    return QString::number(figure(), 'f', 3);
            }
        case ClassFiguresTable::sort_role:
            switch (index.column()) {
                case ClassFiguresTable::class_column:
                    return row;
                case ClassFiguresTable::support_column:
                    return static_cast<qulonglong>(f.support);
                default:
                    return figure();
            }
        case Qt::TextAlignmentRole:
            return index.column() == ClassFiguresTable::class_column ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            break;
    }
    // A zero that is not a measurement says why it is zero.
    if (role == Qt::ToolTipRole) {
        const std::size_t taken = predicted_.at(static_cast<std::size_t>(row));
        if (index.column() == ClassFiguresTable::precision_column && taken == 0)
            return tr("Never predicted: no image was taken for %1, so its precision counts as 0.")
                .arg(names_.value(row));
        if (index.column() == ClassFiguresTable::recall_column && f.support == 0)
            return tr("No image of %1 was evaluated, so its recall counts as 0.").arg(names_.value(row));
    }
    return {};
}

QVariant ClassFiguresModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case ClassFiguresTable::class_column:
                return tr("Class");
            case ClassFiguresTable::precision_column:
                return tr("Precision");
            case ClassFiguresTable::recall_column:
                return tr("Recall");
            case ClassFiguresTable::f1_column:
                return tr("F1");
            case ClassFiguresTable::support_column:
                return tr("Support");
            default:
                return {};
        }
    }
    // Each column says what it measures: learners meet these words here first.
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case ClassFiguresTable::class_column:
                return tr("The true class (sorting restores the dataset's order)");
            case ClassFiguresTable::precision_column:
                return tr("Of the images taken for this class, the share that were of it");
            case ClassFiguresTable::recall_column:
                return tr("Of this class's images, the share recognised");
            case ClassFiguresTable::f1_column:
                return tr("The harmonic mean of precision and recall: high only when both are");
            case ClassFiguresTable::support_column:
                return tr("How many images of this class were evaluated");
            default:
                return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return section == ClassFiguresTable::class_column ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

}  // namespace bps::ui
