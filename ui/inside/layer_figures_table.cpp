#include "ui/inside/layer_figures_table.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <cmath>

#include "ui/editor/fit_columns.h"
#include "ui/inside/parameter_histograms.h"
#include "ui/inside/short_number.h"

namespace bps::ui {

namespace {

const QString none_text = QStringLiteral("—");
const QColor warning_colour(0x9A, 0x34, 0x12);  // as the histograms' finding

QString header_text(int column) {
    switch (column) {
        case LayerFiguresTable::layer_column:
            return LayerFiguresTable::tr("Layer");
        case LayerFiguresTable::type_column:
            return LayerFiguresTable::tr("Type");
        case LayerFiguresTable::output_column:
            return LayerFiguresTable::tr("Output");
        case LayerFiguresTable::parameters_column:
            return LayerFiguresTable::tr("Parameters");
        case LayerFiguresTable::weights_column:
            return LayerFiguresTable::tr("Weights mean ± std");
        case LayerFiguresTable::gradients_column:
            return LayerFiguresTable::tr("Gradients mean ± std");
        case LayerFiguresTable::zero_column:
            return LayerFiguresTable::tr("Zero outputs");
        default:
            return {};
    }
}

// What each column means, in a learner's words (the heading's tooltip).
QString header_tooltip(int column) {
    switch (column) {
        case LayerFiguresTable::layer_column:
            return LayerFiguresTable::tr("The layer's name, as on the canvas. Pick a row to look inside that layer.");
        case LayerFiguresTable::type_column:
            return LayerFiguresTable::tr("What kind of layer it is.");
        case LayerFiguresTable::output_column:
            return LayerFiguresTable::tr(
                "The shape of what the layer hands on for one image: channels x height x width, or a number of units.");
        case LayerFiguresTable::parameters_column:
            return LayerFiguresTable::tr(
                "How many numbers the layer learns, and how that count is made up.\nA Conv2D has filters x kernel "
                "height x kernel width x input channels weights, plus one bias per filter;\na Dense layer has units x "
                "inputs weights, plus one bias per unit.");
        case LayerFiguresTable::weights_column:
            return LayerFiguresTable::tr(
                "The average of the layer's weights ± their spread (standard deviation).\nThe spread usually grows a "
                "little as the layer learns; huge values mean that training diverged.");
        case LayerFiguresTable::gradients_column:
            return LayerFiguresTable::tr(
                "How hard the last batch pushed the layer's weights: the gradients' average ± their spread.\nA spread "
                "far smaller than the other layers' (1e-6 against 1e-2) is a vanishing gradient: the layer barely "
                "learns.\nA spread that keeps growing from epoch to epoch is an exploding gradient.");
        case LayerFiguresTable::zero_column:
            return LayerFiguresTable::tr(
                "For a ReLU: the share of its outputs that are exactly zero on the chosen image (units switched "
                "off).\nAbout half is usual; a ReLU that is zero almost everywhere may be dead: it no longer learns.");
        default:
            return {};
    }
}

QString figures_tooltip(const session::ValueFigures& figures, const QString& what) {
    return LayerFiguresTable::tr("mean %1, standard deviation %2 over %3 %4\nsmallest %5, largest %6")
        .arg(LayerFiguresTable::short_number(figures.mean), LayerFiguresTable::short_number(figures.deviation))
        .arg(figures.count)
        .arg(what, LayerFiguresTable::short_number(figures.min), LayerFiguresTable::short_number(figures.max));
}

}  // namespace

// The rows as a model, so that a live refresh changes the numbers in place (one dataChanged)
// instead of rebuilding items.
class LayerFiguresModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    // True when the rows are other layers (the model was reset), false when only numbers changed.
    bool set_rows(std::vector<LayerFiguresRow> rows) {
        bool same_layers = rows.size() == rows_.size();
        for (std::size_t i = 0; same_layers && i < rows.size(); ++i) same_layers = rows[i].layer == rows_[i].layer;
        if (same_layers) {
            rows_ = std::move(rows);
            find_largest_gradients();
            if (!rows_.empty())
                emit dataChanged(index(0, 0), index(rowCount() - 1, LayerFiguresTable::column_count - 1));
            return false;
        }
        beginResetModel();
        rows_ = std::move(rows);
        find_largest_gradients();
        endResetModel();
        return true;
    }
    const std::vector<LayerFiguresRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : LayerFiguresTable::column_count;
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
        if (orientation != Qt::Horizontal) return {};
        if (role == Qt::DisplayRole) return header_text(section);
        if (role == Qt::ToolTipRole) return header_tooltip(section);
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(alignment(section));
        return {};
    }

    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || index.row() >= rowCount()) return {};
        const LayerFiguresRow& row = rows_[static_cast<std::size_t>(index.row())];
        const int column = index.column();
        if (role == Qt::DisplayRole) return text(row, column);
        if (role == Qt::ToolTipRole) return tooltip(row, column);
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(alignment(column));
        if (role == Qt::ForegroundRole && column == LayerFiguresTable::gradients_column && vanishing(row))
            return warning_colour;
        return {};
    }

    // Its gradients' spread is below ParameterHistograms::vanishing_ratio of the largest layer's,
    // as the histograms' finding counts it.
    bool vanishing(const LayerFiguresRow& row) const {
        return row.gradients && std::isfinite(row.gradients->deviation) && row.gradients->deviation > 0 &&
               row.gradients->deviation < ParameterHistograms::vanishing_ratio * largest_gradient_;
    }

    // Numbers to the right, under a heading on the right, so that their digits line up.
    static Qt::Alignment alignment(int column) {
        const bool number = column == LayerFiguresTable::weights_column ||
                            column == LayerFiguresTable::gradients_column || column == LayerFiguresTable::zero_column;
        return Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft);
    }

    static QString text(const LayerFiguresRow& row, int column) {
        switch (column) {
            case LayerFiguresTable::layer_column:
                return row.layer;
            case LayerFiguresTable::type_column:
                return row.type;
            case LayerFiguresTable::output_column:
                return row.output_shape;
            case LayerFiguresTable::parameters_column:
                return row.formula;
            case LayerFiguresTable::weights_column:
                return row.weights ? LayerFiguresTable::mean_and_deviation(*row.weights) : none_text;
            case LayerFiguresTable::gradients_column:
                return row.gradients ? LayerFiguresTable::mean_and_deviation(*row.gradients) : none_text;
            case LayerFiguresTable::zero_column:
                return row.zero_fraction ? LayerFiguresTable::percent(*row.zero_fraction) : none_text;
            default:
                return {};
        }
    }

    QString tooltip(const LayerFiguresRow& row, int column) const {
        if (column == LayerFiguresTable::gradients_column && vanishing(row))
            return figures_tooltip(*row.gradients, LayerFiguresTable::tr("gradients")) +
                   LayerFiguresTable::tr("\nThey are 1/%1 of %2's: this layer learns slowly (vanishing gradients).")
                       .arg(ratio_text(largest_gradient_ / row.gradients->deviation), largest_layer_);
        switch (column) {
            case LayerFiguresTable::weights_column:
                return row.weights ? figures_tooltip(*row.weights, LayerFiguresTable::tr("weights"))
                                   : LayerFiguresTable::tr("This layer has no weights: it learns nothing.");
            case LayerFiguresTable::gradients_column:
                if (row.gradients) return figures_tooltip(*row.gradients, LayerFiguresTable::tr("gradients"));
                return row.weights ? LayerFiguresTable::tr("No gradients yet: they come with the first batch.")
                                   : LayerFiguresTable::tr("This layer has no weights, so no gradients.");
            case LayerFiguresTable::zero_column:
                return row.zero_fraction
                           ? LayerFiguresTable::tr("%1 of this ReLU's outputs are zero on the chosen image.")
                                 .arg(LayerFiguresTable::percent(*row.zero_fraction))
                           : LayerFiguresTable::tr("Counted for ReLU layers on the chosen image.");
            default:
                return header_tooltip(column);
        }
    }

private:
    void find_largest_gradients() {
        largest_gradient_ = 0;
        largest_layer_.clear();
        for (const LayerFiguresRow& row : rows_)
            if (row.gradients && std::isfinite(row.gradients->deviation) &&
                row.gradients->deviation > largest_gradient_) {
                largest_gradient_ = row.gradients->deviation;
                largest_layer_ = row.layer;
            }
    }

    std::vector<LayerFiguresRow> rows_;
    double largest_gradient_ = 0;  // the largest spread of a layer's gradients
    QString largest_layer_;
};

LayerFiguresTable::LayerFiguresTable(QWidget* parent) : QTableView(parent) {
    setObjectName(QStringLiteral("insideFigures"));
    model_ = new LayerFiguresModel(this);
    setModel(model_);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    horizontalHeader()->setHighlightSections(false);
    // Never sideways; on a wide screen every column gets a share of the spare width, so that a
    // row's numbers stay near its name.
    new FitColumns(this, FitColumns::spread_spare);
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (quiet_) return;
        const QString layer = selected_layer();
        if (!layer.isEmpty()) emit layerChosen(layer);
    });
}

void LayerFiguresTable::set_rows(std::vector<LayerFiguresRow> rows) {
    const QString selected = selected_layer();
    quiet_ = true;
    const bool reset = model_->set_rows(std::move(rows));
    quiet_ = false;
    // A live refresh leaves the selection and the scrolling as the learner left them.
    if (reset && !selected.isEmpty()) select_layer(selected);
}

void LayerFiguresTable::select_layer(const QString& layer) {
    const std::vector<LayerFiguresRow>& rows = model_->rows();
    quiet_ = true;
    clearSelection();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].layer != layer) continue;
        const QModelIndex index = model_->index(static_cast<int>(i), layer_column);
        selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        scrollTo(index);
        break;
    }
    quiet_ = false;
}

QString LayerFiguresTable::selected_layer() const {
    const QModelIndexList selected = selectionModel()->selectedRows();
    if (selected.isEmpty()) return {};
    const int row = selected.front().row();
    return row < row_count() ? model_->rows()[static_cast<std::size_t>(row)].layer : QString();
}

QString LayerFiguresTable::cell_text(int row, Column column) const {
    return model_->index(row, column).data(Qt::DisplayRole).toString();
}

QString LayerFiguresTable::cell_tooltip(int row, Column column) const {
    return model_->index(row, column).data(Qt::ToolTipRole).toString();
}

int LayerFiguresTable::row_count() const {
    return model_->rowCount();
}

QString LayerFiguresTable::short_number(double value) {
    return ui::short_number(value);
}

QString LayerFiguresTable::mean_and_deviation(const session::ValueFigures& figures) {
    return short_number(figures.mean) + QStringLiteral(" ± ") + short_number(figures.deviation);
}

QString LayerFiguresTable::percent(double fraction) {
    if (!std::isfinite(fraction)) return short_number(fraction);
    return QString::number(fraction * 100, 'f', 1) + QLatin1Char('%');
}

}  // namespace bps::ui
