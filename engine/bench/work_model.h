#pragma once
// How much arithmetic and memory traffic one training step of a network needs, counted from its
// layers, so `backprop bench` can say what fraction of a device's measured peak a step reaches.
// The counts are the least the step must do, not what the kernels happen to do: a faster kernel
// raises the fraction, a wasteful one lowers it.
#include <cstddef>
#include <optional>

#include "engine/model/network_spec.h"

namespace bps::bench {

struct StepWork {
    // Forward, backward and SGD-with-momentum update of one batch; a multiply-add counts as 2.
    // Backward counts one forward's worth for a layer's parameter gradient and one for its input
    // gradient, each only where the engine computes it: an input gradient only when a layer
    // before it has parameters to learn (nothing upstream reads it otherwise).
    double flops = 0;
    // Bytes each step must move at least (float32): every layer's forward reads its inputs and
    // writes its output; its backward reads the output's gradient and its saved inputs and writes
    // the inputs' gradients (when computed); the parameters are read forward and, for the input
    // gradient, backward; their gradients are written; the update reads weights, gradients and
    // velocities and writes weights and velocities. Views (Flatten) move nothing.
    double bytes = 0;
};

// Throws model::ModelError for a network that cannot be built.
StepWork training_step_work(const model::NetworkSpec& spec, int batch_size);

// A step's arithmetic and memory rates at a measured throughput, and their share of the device's
// best SGEMM rate and copy bandwidth (nullopt where that figure is 0: not measured).
struct StepRates {
    double gflops_per_s = 0;
    double gb_per_s = 0;
    std::optional<double> of_sgemm_peak;
    std::optional<double> of_bandwidth;
};
StepRates step_rates(const StepWork& work, int batch_size, double images_per_s, double best_gflops_per_s,
                     double copy_gb_per_s);

}  // namespace bps::bench
