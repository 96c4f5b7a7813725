#pragma once
// The Summary dock: the network as Keras's model.summary() shows it, one row per layer in the
// order the network runs them (layers that cannot run follow, with why they have no shape), then
// the totals per image and per batch of the project's batch size. A learner sees what each layer
// costs before pressing Train. The numbers are the graph report's, the same that `backprop
// summary` prints; the dock only reads the document and follows its changed().
#include <QAbstractTableModel>
#include <QDockWidget>
#include <QString>
#include <cstdint>
#include <vector>

class QTableView;

namespace bps::ui {

class NetworkDocument;

// The table behind the dock. DisplayRole is text for people ("225,034", "5.35 MFLOPs");
// value_role is the number itself (parameters and bytes as qulonglong, FLOPs as double; the layer
// name in the Layer column) so tests and tools compare with the report exactly.
class SummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        layer_column,
        type_column,
        shape_column,
        parameters_column,
        flops_column,
        memory_column,
        column_count
    };
    static constexpr int value_role = Qt::UserRole;

    explicit SummaryModel(NetworkDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Rows 0 .. layer_row_count()-1 are layers; the totals follow in this order.
    int layer_row_count() const { return static_cast<int>(layers_.size()); }
    enum TotalRow { total_per_image, total_per_batch, trainable, non_trainable, total_row_count };
    int total_row(TotalRow which) const { return layer_row_count() + which; }
    // The layer's name on a layer row, empty on a total row.
    QString layer_name(int row) const;

public slots:
    void refresh();

private:
    struct LayerRow {
        QString name, type, shape;
        std::uint64_t parameters = 0;
        double flops = 0;
        std::uint64_t activation_bytes = 0;
        bool has_problem = false;
        QString problems;  // the tooltip
    };
    struct Totals {
        std::uint64_t parameters = 0, trainable_parameters = 0, activation_bytes = 0;
        double flops = 0;
        int batch_size = 1;
    };
    QVariant layer_data(const LayerRow& row, int column, int role) const;
    QVariant total_data(TotalRow which, int column, int role) const;

    NetworkDocument* document_;
    std::vector<LayerRow> layers_;
    Totals totals_;
};

class SummaryDock : public QDockWidget {
    Q_OBJECT
public:
    explicit SummaryDock(NetworkDocument* document, QWidget* parent = nullptr);

    SummaryModel* model() const { return model_; }
    QTableView* view() const { return view_; }

signals:
    // A layer's row was double-clicked or activated: the editor selects that layer.
    void layerActivated(const QString& name);

private:
    SummaryModel* model_;
    QTableView* view_;
};

}  // namespace bps::ui
