#pragma once
// How fast a trained network can be looked into: the figures a studio view needs to redraw on
// every stroke of a drawn digit (one prediction), on every click of a layer (every layer's
// activations), and on demand (an occlusion map, the saliency). Timed through session::Predictor
// exactly as the views and `backprop inspect` use it, on the network's initial weights and a
// random image (the work does not depend on the values).
#include <cstddef>
#include <string>

#include "engine/project/project.h"

namespace bps::bench {

struct InspectionTiming {
    double predict_ms = 0;      // one image
    double activations_ms = 0;  // every layer's output for one image
    double occlusion_ms = 0;    // patch 4, stride 2
    std::size_t occlusion_positions = 0;
    double saliency_ms = 0;  // the input gradient of one class
    double open_ms = 0;      // making the predictor: the device, its kernels (cache warm or cold), the weights
};

// Medians of `repeats` calls of each kind after one untimed call. `device_request` as
// `backprop bench --device` takes it.
InspectionTiming time_inspection(const project::Project& project, const datasets::ImageShape& shape, int classes,
                                 const std::string& device_request, int repeats);

}  // namespace bps::bench
