#pragma once
// A project's network as Python source, shared by the scripts that `backprop export` writes (the
// predicting ones of code_export.h and the training ones of training_script.h): layer names as
// Python identifiers, Python literals, and the layers in PyTorch (channels-first, flattening
// channels-last as Keras does) and in Keras's functional API.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/graph_analysis.h"
#include "engine/project/project.h"
#include "engine/project/project_format.h"
#include "engine/runs/model_card.h"

namespace bps::session {

// Pieces joined by appending (GCC 12's -Wrestrict misfires on chains of operator+ with literals).
std::string cat(std::initializer_list<std::string_view> parts);
// A Python string literal (JSON's escapes are Python's too); bytes that are not UTF-8 become U+FFFD.
std::string py_string(const std::string& text);
// The shortest text that reads back as the same float (0.99f prints as 0.99, not 0.990000009).
std::string py_float(float value);
std::string py_floats(const std::vector<float>& values);
std::string pair_text(int a, int b);

struct Network {
    model::GraphAnalysis analysis;
    std::vector<std::string> names;  // each layer's name as a Python identifier, unique
    std::vector<bool> maps;          // whether each layer's output is a feature map rather than flat
};

// Throws model::ModelError when the network cannot work on card.shape images.
Network network_of(const project::Project& project, const ModelCard& card);
// The identifiers of a layer's inputs, comma-separated.
std::string input_names(const Network& network, const model::LayerAnalysis& layer);
// Whether layer `i`'s first input is a feature map.
bool input_is_map(const Network& network, std::size_t i);

// The PyTorch network: the modules of __init__ (self.NAME = nn...), the lines of forward() ending
// in the output layer's variable (logits), and load_weights()'s lines copying a Keras-layout file's
// arrays (through a local function weight(layer, name)) into `model`.
struct TorchLayers {
    std::string modules, forward, loading;
};
TorchLayers torch_layers(const Network& network);

// The Keras network: one line per layer (NAME = layers...(inputs)) inside a function, Input first;
// `initializers`: Dense and Conv2D name their kernel's initialiser (Keras's names are the engine's).
std::string keras_layers(const Network& network, bool initializers = false);

}  // namespace bps::session
