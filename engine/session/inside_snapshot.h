#pragma once
// What a training run hands over for a live look inside it (JobSetup::inside_interval): its
// weights and their latest gradients, read from the device between batches without the training
// waiting for them, as the snapshot a divergence goes back to is (session/last_finite_weights.h).
#include <cstddef>
#include <vector>

#include "engine/io/weights_file.h"

namespace bps::session {

struct InsideSnapshot {
    std::size_t batches = 0;  // taken after this many batches of the run
    int epoch = 0;            // 0-based, the epoch in progress
    double position = 0;      // in epochs, fractional (as BatchReport::position())
    // Every parameter, named and shaped as io::download_parameters gives them ("conv1.weight").
    std::vector<io::NamedArray> weights;
    // The gradient of every trainable parameter from the same batch as `weights` was read after,
    // under the same names (no running statistics).
    std::vector<io::NamedArray> gradients;
};

}  // namespace bps::session
