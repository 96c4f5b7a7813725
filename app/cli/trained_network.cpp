#include "app/cli/trained_network.h"

#include "engine/cl/cache_location.h"
#include "engine/io/network_weights.h"

namespace bps::cli {

WeightsOnDisk read_weights(const std::string& file) {
    WeightsOnDisk weights;
    weights.file = file;
    weights.arrays = io::load_weights(file);
    weights.card = session::parse_model_card(io::load_weights_description(file), file);
    return weights;
}

void check_weights_fit(const WeightsOnDisk& weights, const session::DataFacts& facts) {
    const datasets::ImageShape& trained = weights.card.shape;
    if (trained.channels != facts.shape.channels || trained.height != facts.shape.height ||
        trained.width != facts.shape.width)
        throw io::WeightsFileError(weights.file, "was trained on " + trained.to_string() + " images but " +
                                                     facts.title + " has " + facts.shape.to_string() + " images");
    if (weights.card.class_names.size() != facts.class_count)
        throw io::WeightsFileError(weights.file, "was trained on " + std::to_string(weights.card.class_names.size()) +
                                                     " classes but " + facts.title + " has " +
                                                     std::to_string(facts.class_count));
}

LoadedNetwork load_network(const cl::DeviceInfo& device, const model::NetworkSpec& spec, int batch_size,
                           const WeightsOnDisk& weights) {
    LoadedNetwork loaded;
    loaded.cache = std::make_unique<cl::KernelCache>(cl::kernel_cache_dir());
    loaded.runtime = std::make_unique<ops::Runtime>(device, loaded.cache.get());
    loaded.network = std::make_unique<model::Network>(*loaded.runtime, spec, batch_size, train::OptimizerSettings{}, 0);
    io::upload_parameters(*loaded.runtime, *loaded.network, weights.arrays, weights.file);
    return loaded;
}

}  // namespace bps::cli
