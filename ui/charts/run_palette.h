#pragma once
// The colours that tell runs (and devices) apart in every chart: the run list's swatches, the
// training curves, the device comparison's charts and the Inside tab's histograms use the same
// colour for the same index, so a run keeps its colour from one view to the next.
#include <QColor>

namespace bps::ui {

// Tableau 10: ten colours told apart on white and by most colour-blind eyes.
inline constexpr int palette_size = 10;
// The palette's colour for `index`, wrapping around past the tenth (negative indices wrap too).
QColor palette_colour(int index);

}  // namespace bps::ui
