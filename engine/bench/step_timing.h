#pragma once
// Times the training step of a network on random data: what `backprop bench` reports. Each
// timed step ends with a queue finish, so a figure is the device time of one whole step.
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/network.h"
#include "engine/model/network_spec.h"
#include "engine/ops/runtime.h"

namespace bps::bench {

struct StepTimingOptions {
    int batch_size = 64;
    int warm_up_steps = 3;
    // Steps per timed run; 0: as many as take about run_seconds on this device (3 to 500), so a
    // slow device is measured in bounded time and a fast one long enough to be steady.
    int steps = 0;
    int runs = 3;  // timed runs; the throughput is their median
    double run_seconds = 1.0;
    std::uint64_t seed = 1;
    bool per_layer = false;        // also one extra step that waits after each layer
    bool first_step_only = false;  // stop after the first step (first_step_ms and the counts)
    // Set (from any thread) to end the timing between steps with TimingCancelled: the studio's
    // Cancel. Null: never. (An atomic flag, not std::stop_token, which Apple's libc++ lacks.)
    const std::atomic<bool>* cancel = nullptr;
};

class TimingCancelled : public std::runtime_error {
public:
    TimingCancelled() : std::runtime_error("cancelled") {}
};

struct StepTiming {
    // Training throughput: each timed run enqueues `steps` whole steps (forward, loss, backward,
    // update) back to back, as training does, and waits once at its end; the median run.
    double images_per_s = 0;
    int steps = 0;                    // per timed run
    std::vector<double> run_seconds;  // each timed run, in order
    // One step at a time, each waited for (the median over `steps` steps, at most 100): where the
    // time of a step goes.
    double forward_ms = 0;                   // forward (training mode) + loss
    double forward_backward_ms = 0;          // forward + loss + backward
    double step_ms = 0;                      // forward + loss + backward + SGD update
    double first_step_ms = 0;                // the first step, including kernel builds (cold or cached)
    std::size_t device_bytes = 0;            // the network's planned device memory
    std::size_t kernels_per_step = 0;        // the engine's own kernels in one whole step
    std::size_t gemms_per_step = 0;          // and its CLBlast GEMM calls
    std::vector<model::LayerTiming> layers;  // with per_layer: per layer, from one step that waits after each
};

StepTiming time_training_step(ops::Runtime& runtime, const model::NetworkSpec& spec, const StepTimingOptions& options);

}  // namespace bps::bench
