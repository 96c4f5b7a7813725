#include "engine/io/network_weights.h"

#include <atomic>
#include <map>

namespace bps::io {

namespace {
std::atomic<unsigned long long> parameter_download_count = 0;
}  // namespace

std::vector<NamedArray> download_parameters(ops::Runtime& runtime, const model::Network& network) {
    ++parameter_download_count;
    std::vector<NamedArray> arrays;
    for (const model::ParameterView& parameter : network.parameters())
        arrays.push_back({parameter.name, parameter.dims, runtime.read(parameter.value)});
    return arrays;
}

unsigned long long parameter_downloads() {
    return parameter_download_count.load();
}

void upload_parameters(ops::Runtime& runtime, model::Network& network, std::span<const NamedArray> arrays,
                       const std::string& source) {
    std::map<std::string, const NamedArray*> by_name;
    for (const NamedArray& array : arrays) by_name[array.name] = &array;
    const std::vector<model::ParameterView> parameters = network.parameters();
    // Check everything before writing anything, so a refused file leaves the network as it was.
    for (const model::ParameterView& parameter : parameters) {
        const auto found = by_name.find(parameter.name);
        if (found == by_name.end())
            throw WeightsFileError(source,
                                   "has no array '" + parameter.name + "'; it was saved from a different network");
        const std::vector<int>& expected = parameter.dims;
        if (found->second->dims != expected || found->second->values.size() != parameter.value.shape.count())
            throw WeightsFileError(source, "array '" + parameter.name + "' is " + dims_text(found->second->dims) +
                                               " but the network needs " + dims_text(expected) +
                                               "; it was saved from a different network");
        by_name.erase(found);
    }
    if (!by_name.empty())
        throw WeightsFileError(source, "holds '" + by_name.begin()->first +
                                           "', which this network does not have; it was saved from a different "
                                           "network");
    std::map<std::string, const NamedArray*> all;
    for (const NamedArray& array : arrays) all[array.name] = &array;
    for (const model::ParameterView& parameter : parameters)
        runtime.write(parameter.value, all.at(parameter.name)->values);
}

}  // namespace bps::io
