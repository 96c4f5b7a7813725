#include "engine/compare/inspection_timing.h"

#include <functional>
#include <random>

#include "engine/bench/stopwatch.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/io/network_weights.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/session/predictor.h"

namespace bps::bench {

namespace {

double median_of(int repeats, const std::function<void()>& work) {
    work();  // the first call may still size the device's buffers
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        const Clock::time_point start = Clock::now();
        work();
        times.push_back(milliseconds_since(start));
    }
    return median(times);
}

}  // namespace

InspectionTiming time_inspection(const project::Project& project, const datasets::ImageShape& shape, int classes,
                                 const std::string& device_request, int repeats) {
    session::PredictorSource source;
    source.project = project;
    source.card.project = project.name;
    source.card.shape = shape;
    for (int c = 0; c < classes; ++c) source.card.class_names.push_back(std::to_string(c));
    source.source = "the network's initial weights";
    {
        // The initial weights, as a run's first epoch starts from them.
        const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
        cl::KernelCache cache(cl::kernel_cache_dir());
        ops::Runtime runtime(devices.at(cl::select_device(devices, device_request)), &cache);
        const model::Network network(runtime, project::project_network(project, shape), 1, train::OptimizerSettings{},
                                     project.training.seed);
        source.weights = io::download_parameters(runtime, network);
    }
    InspectionTiming timing;
    const Clock::time_point opening = Clock::now();
    session::PredictorSetup setup;
    setup.device_request = device_request;
    session::Predictor predictor(std::move(source), setup);
    timing.open_ms = milliseconds_since(opening);

    std::mt19937 random(7);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> image(shape.per_sample());
    for (float& value : image) value = pixel(random);
    timing.predict_ms = median_of(repeats, [&] { predictor.predict(image); });
    timing.activations_ms = median_of(repeats, [&] { predictor.activations(image); });
    timing.occlusion_ms = median_of(repeats, [&] {
        const session::OcclusionMap map = predictor.occlusion(image, 4, 2);
        timing.occlusion_positions = map.drops.size();
    });
    timing.saliency_ms = median_of(repeats, [&] { predictor.input_gradient(image, 0); });
    return timing;
}

}  // namespace bps::bench
