#pragma once
// A weights file opened for use: its arrays and its model card, checked against the project and
// the data before any device is touched, then put into a network on a device.
#include <memory>
#include <string>
#include <vector>

#include "engine/cl/device.h"
#include "engine/cl/kernel_cache.h"
#include "engine/io/weights_file.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/session/model_card.h"
#include "engine/session/project_data.h"

namespace bps::cli {

struct WeightsOnDisk {
    std::string file;
    std::vector<io::NamedArray> arrays;
    session::ModelCard card;
};

// Reads FILE; throws io::WeightsFileError for a damaged file or one without a model card.
WeightsOnDisk read_weights(const std::string& file);

// Throws io::WeightsFileError when the weights were trained on other images or classes.
void check_weights_fit(const WeightsOnDisk& weights, const session::DataFacts& facts);

// A runtime and the project's network on it holding the weights.
struct LoadedNetwork {
    std::unique_ptr<cl::KernelCache> cache;
    std::unique_ptr<ops::Runtime> runtime;
    std::unique_ptr<model::Network> network;
};
LoadedNetwork load_network(const cl::DeviceInfo& device, const model::NetworkSpec& spec, int batch_size,
                           const WeightsOnDisk& weights);

}  // namespace bps::cli
