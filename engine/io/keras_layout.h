#pragma once
// The engine's parameters in the layout Keras gives a weights file, and back. Keras is
// channels-last and names its weights by role, so a layer's arrays change name, axis order and,
// after a Flatten of a feature map, row order:
//   Dense   weight [units, in]          -> kernel (in, units), rows in H,W,C order after a Flatten
//   Conv2D  weight [out, in, kh, kw]    -> kernel (kh, kw, in, out)
//   bias, gamma, beta                   -> bias, gamma, beta (c)
//   BatchNorm running_mean, running_var -> moving_mean, moving_variance (c)
// A flat tensor made from a feature map keeps the permutation between our C,H,W flattening and
// Keras's H,W,C one through every layer that does not mix features (activations, dropout,
// BatchNorm, Add, Concatenate), so a Dense or a BatchNorm anywhere after the Flatten is re-ordered.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/graph_analysis.h"

namespace bps::io {

// Every layer of `analysis` in execution order (Input included, as Keras's functional models list
// it); layers without parameters get no weights. `arrays` are the engine's ("fc1.weight", engine
// dims, as io::download_parameters gives them). Throws WeightsFileError naming `source` when an
// array is missing or has another shape.
std::vector<KerasLayer> to_keras_layout(const model::GraphAnalysis& analysis, std::span<const NamedArray> arrays,
                                        const std::filesystem::path& source);

// The engine's arrays for the network of `analysis` from Keras-layout layers. Layers are matched
// by name when every layer with weights is found by name, otherwise in order among the layers
// with weights (as Keras's load_weights does). Throws WeightsFileError naming `source`, the
// layer and both shapes on a mismatch.
std::vector<NamedArray> from_keras_layout(const model::GraphAnalysis& analysis, std::span<const KerasLayer> layers,
                                          const std::filesystem::path& source);

}  // namespace bps::io
