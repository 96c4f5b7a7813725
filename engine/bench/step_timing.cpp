#include "engine/bench/step_timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/model/network.h"
#include "engine/train/random.h"

namespace bps::bench {

namespace {
using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}
}  // namespace

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
    auto step = [&](bool backward, bool update) {
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
    for (int i = 1; i < options.warm_up_steps; ++i) step(true, true);
    std::vector<double> forward, forward_backward, whole;
    for (int i = 0; i < options.timed_steps; ++i) {
        forward.push_back(step(false, false));
        forward_backward.push_back(step(true, false));
        whole.push_back(step(true, true));
    }
    timing.forward_ms = median(forward);
    timing.forward_backward_ms = median(forward_backward);
    timing.step_ms = median(whole);
    timing.images_per_s = timing.step_ms > 0 ? 1000.0 * batch / timing.step_ms : 0;
    if (options.per_layer) timing.layers = network.time_layers(batch);
    return timing;
}

}  // namespace bps::bench
