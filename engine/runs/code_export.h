#pragma once
// A trained network as code a learner can run and read in the tools they meet next: a PyTorch
// script and a Keras script that define the same network, layer by layer under the project's
// names, load the exported weights file (Keras's layout, see engine/io/weights_file.h), and
// predict image files given on their command line, printing what `backprop predict` prints
// (`--json`: every class's probability). PyTorch is channels-first, so its script flattens
// channels-last (x.permute(0, 2, 3, 1).flatten(1)) exactly as Keras does, and the Dense kernels
// need only a transpose.
#include <string>

#include "engine/project/project.h"
#include "engine/runs/model_card.h"

namespace bps::session {

// `weights_file` is the path the script opens, relative to the script's own folder unless it is
// absolute. Throws model::ModelError when the project's network cannot work on card.shape images.
std::string pytorch_script(const project::Project& project, const ModelCard& card, const std::string& weights_file);
std::string keras_script(const project::Project& project, const ModelCard& card, const std::string& weights_file);

}  // namespace bps::session
