#pragma once
// Figures per layer, as ConvNetJS prints them beside each layer: its output shape, how its
// parameter count is made up ("32x3x3x1 + 32 = 320"), the mean and spread of its weights and of
// their gradients, and the share of a ReLU's outputs that are zero on the chosen image. One row per
// layer in execution order; picking a row chooses that layer for the rest of the Inside view.
// It only shows the plain values it is given.
#include <QString>
#include <QTableView>
#include <optional>
#include <vector>

#include "engine/runs/inside_figures.h"

namespace bps::ui {

struct LayerFiguresRow {
    QString layer, type;                                      // "conv1", "Conv2D"
    QString output_shape;                                     // "32x26x26"
    QString formula;                                          // "32x3x3x1 + 32 = 320"
    std::optional<session::ValueFigures> weights, gradients;  // none for a layer without weights, or before a batch
    std::optional<double> zero_fraction;                      // a ReLU's outputs that are zero on the image
};

class LayerFiguresModel;

class LayerFiguresTable : public QTableView {
    Q_OBJECT
public:
    enum Column {
        layer_column,
        type_column,
        output_column,
        parameters_column,
        weights_column,
        gradients_column,
        zero_column,
        column_count
    };

    explicit LayerFiguresTable(QWidget* parent = nullptr);

    // Keeps the selected layer selected when it is still there (a live refresh changes only the
    // numbers), without emitting layerChosen.
    void set_rows(std::vector<LayerFiguresRow> rows);
    // Selects and scrolls to the layer's row (none for an unknown layer), without emitting layerChosen.
    void select_layer(const QString& layer);
    QString selected_layer() const;  // empty for none

    // The text of a cell as shown, and its tooltip, for tests.
    QString cell_text(int row, Column column) const;
    QString cell_tooltip(int row, Column column) const;
    int row_count() const;

    // A number as the table writes it: three significant digits, scientific below 0.001 or from
    // 100,000 ("0.0981", "12.3", "1.2e-5", "-3.4e-4"); "NaN", "inf".
    static QString short_number(double value);
    static QString mean_and_deviation(const session::ValueFigures& figures);  // "0.0012 ± 0.0981"
    static QString percent(double fraction);                                  // "43.1%"

signals:
    // The learner picked a row (click or keyboard); not emitted by set_rows or select_layer.
    void layerChosen(const QString& layer);

private:
    LayerFiguresModel* model_ = nullptr;
    bool quiet_ = false;  // selection changes made by the program, not the learner
};

}  // namespace bps::ui
