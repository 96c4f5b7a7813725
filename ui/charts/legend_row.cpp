#include "ui/charts/legend_row.h"

namespace bps::ui {

QCPLegend* legend_under_title(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    plot.axisRect()->insetLayout()->take(legend);
    plot.plotLayout()->insertRow(1);
    plot.plotLayout()->addElement(1, 0, legend);
    plot.plotLayout()->setRowStretchFactor(1, 0.001);
    // An empty legend's widest is its margins, and QCustomPlot makes that the widest of the whole
    // column (issue 49: the loss plot shrank to its axes before the first run). Any width is fine
    // for a legend.
    legend->setSizeConstraintRect(QCPLayoutElement::scrOuterRect);
    legend->setMaximumSize(QWIDGETSIZE_MAX - 1, QWIDGETSIZE_MAX);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    return legend;
}

}  // namespace bps::ui
