#pragma once
// A network spec from its input shape and its layers, as the model tests write them.
#include <utility>
#include <vector>

#include "engine/model/network_spec.h"

namespace bps::test {

inline model::NetworkSpec spec_of(Shape input, std::vector<model::LayerSpec> layers) {
    model::NetworkSpec spec;
    spec.input = input;
    spec.layers = std::move(layers);
    return spec;
}

}  // namespace bps::test
