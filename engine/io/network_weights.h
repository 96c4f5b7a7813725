#pragma once
// Moving a network's parameters between the device and host arrays, the form weights files
// hold. Matching is by name ("fc1.weight") and shape, so a file saved from another network is
// refused with what differs instead of being loaded into the wrong layers.
#include <span>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"

namespace bps::io {

// Every parameter (BatchNorm's running statistics included), in Network::parameters() order.
// Blocks until the device has finished.
std::vector<NamedArray> download_parameters(ops::Runtime& runtime, const model::Network& network);

// How many times this process has called download_parameters: tests count a run's downloads.
unsigned long long parameter_downloads();

// Replaces every parameter of `network` with the array of the same name. Throws WeightsFileError
// naming `source` when an array is missing, has another shape, or the source holds an array the
// network does not have; nothing is changed on the device then.
void upload_parameters(ops::Runtime& runtime, model::Network& network, std::span<const NamedArray> arrays,
                       const std::string& source);

}  // namespace bps::io
