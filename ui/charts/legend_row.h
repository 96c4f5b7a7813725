#pragma once
// A QCustomPlot's legend as a row of its own under the title (the plot's row 1), not inside the
// axis rect, so that it never hides a curve, a bar's figure or a marker's label. The training
// curves, the device comparison's charts and the Inside tab's gradient sizes share it.
#include <qcustomplot.h>

namespace bps::ui {

// Moves the plot's legend into a row under the title, filled column by column, as wide as the
// plot allows. The caller sets its wrap, font and visibility.
QCPLegend* legend_under_title(QCustomPlot& plot);

}  // namespace bps::ui
