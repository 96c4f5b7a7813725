#include "engine/bench/step_timing.h"

#include <algorithm>
#include <vector>

#include "engine/bench/stopwatch.h"
#include "engine/model/network.h"
#include "engine/train/random.h"

namespace bps::bench {

StepTiming time_training_step(ops::Runtime& runtime, const model::NetworkSpec& spec, const StepTimingOptions& options) {
    train::OptimizerSettings sgd;  // the reference work: SGD 0.01, momentum 0.9
    model::Network network(runtime, spec, options.batch_size, sgd, options.seed);
    const int batch = options.batch_size;
    const int classes = static_cast<int>(network.output_shape().per_sample());

    train::Random random(options.seed);
    std::vector<float> images(static_cast<std::size_t>(batch) * network.input_shape().per_sample());
    for (float& v : images) v = random.uniform();
    std::vector<int> labels(static_cast<std::size_t>(batch));
    for (int& label : labels) label = static_cast<int>(random.below(static_cast<std::uint32_t>(classes)));
    network.upload_images(images, batch);
    network.upload_labels(labels);

    StepTiming timing;
    timing.device_bytes = network.device_bytes();
    auto check_cancel = [&] {
        if (options.cancel && options.cancel->load()) throw TimingCancelled();
    };
    auto step = [&](bool backward, bool update) {
        check_cancel();
        const Clock::time_point start = Clock::now();
        network.forward(batch, true);
        network.loss(batch);
        if (backward) network.backward(batch);
        if (update) network.update(sgd.learning_rate);
        runtime.finish();
        return milliseconds_since(start);
    };
    const ops::Runtime::Launches before = runtime.launches();
    timing.first_step_ms = step(true, true);
    timing.kernels_per_step = runtime.launches().kernels - before.kernels;
    timing.gemms_per_step = runtime.launches().gemms - before.gemms;
    if (options.first_step_only) return timing;
    double last_warm_up_ms = timing.first_step_ms;
    for (int i = 1; i < options.warm_up_steps; ++i) last_warm_up_ms = step(true, true);

    timing.steps = options.steps;
    if (timing.steps <= 0) {
        const double fitting = 1000 * options.run_seconds / std::max(last_warm_up_ms, 1e-3);
        timing.steps = static_cast<int>(std::clamp(fitting, 3.0, 500.0));
    }
    std::vector<double> throughput;
    for (int run = 0; run < options.runs; ++run) {
        const Clock::time_point start = Clock::now();
        for (int i = 0; i < timing.steps; ++i) {
            check_cancel();
            network.forward(batch, true);
            network.loss(batch);
            network.backward(batch);
            network.update(sgd.learning_rate);
        }
        runtime.finish();
        const double seconds = milliseconds_since(start) / 1000;
        timing.run_seconds.push_back(seconds);
        throughput.push_back(seconds > 0 ? timing.steps * batch / seconds : 0);
    }
    timing.images_per_s = throughput.empty() ? 0 : median(throughput);

    std::vector<double> forward, forward_backward, whole;
    for (int i = 0; i < std::min(timing.steps, 100); ++i) {
        forward.push_back(step(false, false));
        forward_backward.push_back(step(true, false));
        whole.push_back(step(true, true));
    }
    timing.forward_ms = median(forward);
    timing.forward_backward_ms = median(forward_backward);
    timing.step_ms = median(whole);
    if (options.per_layer) timing.layers = network.time_layers(batch);
    return timing;
}

}  // namespace bps::bench
