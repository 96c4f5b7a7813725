#include "ui/editor/summary_dock.h"

#include <QColor>
#include <QFont>
#include <QHeaderView>
#include <QTableView>
#include <algorithm>
#include <string>

#include "engine/base/number_text.h"
#include "ui/document/network_document.h"
#include "ui/editor/fit_columns.h"

namespace bps::ui {

SummaryModel::SummaryModel(NetworkDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(document_, &NetworkDocument::changed, this, &SummaryModel::refresh);
    refresh();
}

void SummaryModel::refresh() {
    beginResetModel();
    layers_.clear();
    totals_ = {};
    const model::GraphReport& report = document_->report();
    const auto& specs = document_->network().layers;
    const std::size_t count = std::min(report.nodes.size(), specs.size());

    auto add_row = [&](std::size_t index) {
        const model::NodeReport& node = report.nodes[index];
        const model::LayerSpec& spec = specs[index];
        LayerRow row;
        row.name = QString::fromStdString(spec.name);
        row.type = QString::fromUtf8(model::layer_type_name(spec.type));
        row.shape = QString::fromStdString(node.output ? node.output->sample_text() : node.shape_text());
        row.parameters = node.parameters;
        row.flops = node.flops;
        row.activation_bytes = node.activation_bytes;
        row.has_problem = !node.ok();
        QStringList problems;
        for (const std::string& problem : node.problems) problems << QString::fromStdString(problem);
        row.problems = problems.join(QLatin1Char('\n'));
        totals_.parameters += node.parameters;
        totals_.trainable_parameters += node.trainable_parameters;
        totals_.flops += node.flops;
        totals_.activation_bytes += node.activation_bytes;
        layers_.push_back(std::move(row));
    };

    // First the layers that run, in the order they run (as Keras lists them), then the rest in
    // the graph's own order so no layer is missing from the table.
    std::vector<bool> listed(count, false);
    for (int index : report.execution_order) {
        if (index < 0 || static_cast<std::size_t>(index) >= count || listed[static_cast<std::size_t>(index)]) continue;
        listed[static_cast<std::size_t>(index)] = true;
        add_row(static_cast<std::size_t>(index));
    }
    for (std::size_t index = 0; index < count; ++index)
        if (!listed[index]) add_row(index);
    totals_.batch_size = std::max(1, document_->project().training.batch_size);
    endResetModel();
}

int SummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : layer_row_count() + total_row_count;
}

int SummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : column_count;
}

QString SummaryModel::layer_name(int row) const {
    if (row < 0 || row >= layer_row_count()) return {};
    return layers_[static_cast<std::size_t>(row)].name;
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.column() >= column_count) return {};
    const int row = index.row();
    if (row < layer_row_count()) return layer_data(layers_[static_cast<std::size_t>(row)], index.column(), role);
    if (row < layer_row_count() + total_row_count)
        return total_data(static_cast<TotalRow>(row - layer_row_count()), index.column(), role);
    return {};
}

QVariant SummaryModel::layer_data(const LayerRow& row, int column, int role) const {
    if (role == Qt::TextAlignmentRole && column >= parameters_column)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && row.has_problem && !row.problems.isEmpty()) return row.problems;
    // A layer that cannot run says so in its shape; the Problems dock has the whole message.
    if (role == Qt::ForegroundRole && row.has_problem && column == shape_column) return QColor(Qt::red);
    if (role != Qt::DisplayRole && role != value_role) return {};
    // Each column's value, and the text it is shown as where that differs.
    QVariant value;
    std::string text;
    switch (column) {
        case layer_column:
            return row.name;
        case type_column:
            return row.type;
        case shape_column:
            return row.shape;
        case parameters_column:
            value = QVariant::fromValue<qulonglong>(row.parameters);
            text = session::format_thousands(row.parameters);
            break;
        case flops_column:
            value = row.flops;
            text = session::format_flops(row.flops);
            break;
        case memory_column:
            value = QVariant::fromValue<qulonglong>(row.activation_bytes);
            text = session::format_bytes(row.activation_bytes);
            break;
        default:
            return {};
    }
    return role == value_role ? value : QVariant(QString::fromStdString(text));
}

QVariant SummaryModel::total_data(TotalRow which, int column, int role) const {
    if (role == Qt::FontRole) {
        QFont font;
        font.setBold(which == total_per_image || which == total_per_batch);
        return font;
    }
    if (role == Qt::TextAlignmentRole && column >= parameters_column)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    const auto batch = static_cast<std::uint64_t>(totals_.batch_size);
    // Which columns each total fills: parameters do not grow with the batch; FLOPs and
    // activations do.
    QVariant value;
    QString text;
    if (column == layer_column) {
        switch (which) {
            case total_per_image:
                text = tr("Total per image");
                break;
            case total_per_batch:
                text = tr("Total per batch of %1").arg(totals_.batch_size);
                break;
            case trainable:
                text = tr("Trainable parameters");
                break;
            case non_trainable:
                text = tr("Non-trainable parameters");
                break;
            default:
                break;
        }
        value = text;
    } else if (column == parameters_column) {
        std::uint64_t parameters = 0;
        bool shown = true;
        switch (which) {
            case total_per_image:
                parameters = totals_.parameters;
                break;
            case trainable:
                parameters = totals_.trainable_parameters;
                break;
            case non_trainable:
                parameters = totals_.parameters - totals_.trainable_parameters;
                break;
            default:
                shown = false;
                break;
        }
        if (shown) {
            value = QVariant::fromValue<qulonglong>(parameters);
            text = QString::fromStdString(session::format_thousands(parameters));
        }
    } else if (column == flops_column && (which == total_per_image || which == total_per_batch)) {
        const double flops = which == total_per_image ? totals_.flops : totals_.flops * static_cast<double>(batch);
        value = flops;
        text = QString::fromStdString(session::format_flops(flops));
    } else if (column == memory_column && (which == total_per_image || which == total_per_batch)) {
        const std::uint64_t bytes =
            which == total_per_image ? totals_.activation_bytes : totals_.activation_bytes * batch;
        value = QVariant::fromValue<qulonglong>(bytes);
        text = QString::fromStdString(session::format_bytes(bytes));
    }
    if (role == Qt::DisplayRole) return text.isEmpty() ? QVariant() : QVariant(text);
    if (role == value_role) return value;
    return {};
}

QVariant SummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case shape_column:
                return tr("One image's output: (channels, height, width) or (features)");
            case flops_column:
                return tr("Floating-point operations of the forward pass, per image");
            case memory_column:
                return tr("Memory the layer's output takes, per image");
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
        case layer_column:
            return tr("Layer");
        case type_column:
            return tr("Type");
        case shape_column:
            return tr("Output shape");
        case parameters_column:
            return tr("Parameters");
        case flops_column:
            return tr("FLOPs");
        case memory_column:
            return tr("Activations");
        default:
            return {};
    }
}

SummaryDock::SummaryDock(NetworkDocument* document, QWidget* parent)
    : QDockWidget(tr("Summary"), parent), model_(new SummaryModel(document, this)), view_(new QTableView(this)) {
    setObjectName("summaryDock");
    view_->setObjectName("summaryView");
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->verticalHeader()->setVisible(false);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    // Extra width goes to the names, not between a number and its neighbour; a narrow dock
    // narrows every column instead of scrolling sideways.
    new FitColumns(view_, SummaryModel::layer_column);
    setWidget(view_);
    connect(view_, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QString name = model_->layer_name(index.row());
        if (!name.isEmpty()) emit layerActivated(name);
    });
}

}  // namespace bps::ui
