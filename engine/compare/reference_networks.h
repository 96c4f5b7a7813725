#pragma once
// The reference networks of shared/bench/REFERENCE.md (mlp, cnn, cifar): every performance
// figure of the project is measured on these.
#include <string_view>

#include "engine/model/network_spec.h"

namespace bps::bench {

// Throws std::invalid_argument listing the known names for an unknown one.
model::NetworkSpec reference_network(std::string_view name);

}  // namespace bps::bench
