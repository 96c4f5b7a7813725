#pragma once
// Times the training step of a network on random data: what `backprop bench` reports. Each
// timed step ends with a queue finish, so a figure is the device time of one whole step.
#include <string>
#include <vector>

#include "engine/model/network.h"
#include "engine/model/network_spec.h"
#include "engine/ops/runtime.h"

namespace bps::bench {

struct StepTimingOptions {
    int batch_size = 64;
    int warm_up_steps = 3;
    int timed_steps = 10;
    std::uint64_t seed = 1;
    bool per_layer = false;  // also one extra step that waits after each layer
};

struct StepTiming {
    double forward_ms = 0;                   // median forward (training mode) + loss
    double forward_backward_ms = 0;          // median forward + loss + backward
    double step_ms = 0;                      // median forward + loss + backward + SGD update
    double images_per_s = 0;                 // batch_size / step_ms
    double first_step_ms = 0;                // the first step, including kernel builds (cold or cached)
    std::size_t device_bytes = 0;            // the network's planned device memory
    std::size_t kernels_per_step = 0;        // the engine's own kernels in one whole step
    std::size_t gemms_per_step = 0;          // and its CLBlast GEMM calls
    std::vector<model::LayerTiming> layers;  // with per_layer: per layer, from one step that waits after each
};

StepTiming time_training_step(ops::Runtime& runtime, const model::NetworkSpec& spec, const StepTimingOptions& options);

}  // namespace bps::bench
