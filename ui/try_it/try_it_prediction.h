#pragma once
// What the Try it panel shows after a prediction: the image exactly as the network received it,
// what was done to the learner's input to get it, where it came from, and every class's
// probability. Filled by the window's controller from session::Predictor; the panel only paints it.
#include <QString>
#include <optional>
#include <vector>

namespace bps::ui {

struct TryItPrediction {
    std::vector<float> pixels;  // channels x height x width values in [0, 1] (CHW), as received
    int channels = 1, height = 0, width = 0;
    std::vector<float> probabilities;  // one per class, in class order
    QString adjusted;                  // "the drawing's 143x201 pixels of ink fitted into 20x20 and centred …"
    std::optional<int> true_label;     // a test image's class; none for a drawing or a file
    QString source;                    // "your drawing", "shirt.png", "test image 4,211 (true: Coat)"
};

}  // namespace bps::ui
