#pragma once
// What a network is, independent of any device: layers by name with the names of their inputs
// (a directed acyclic graph), the per-sample input shape and the loss. A project file (JSON)
// becomes a NetworkSpec; a Network builds it on a device.
#include <optional>
#include <string>
#include <vector>

#include "engine/tensor/layer_geometry.h"
#include "engine/tensor/shape.h"
#include "engine/train/initializer.h"

namespace bps::model {

enum class LayerType {
    input,
    dense,
    conv2d,
    max_pool,
    avg_pool,
    global_avg_pool,
    flatten,
    activation,
    dropout,
    batch_norm,
    add,
    concat,
};

// "Dense", "Conv2D", ...: the names learners see in messages and summaries.
const char* layer_type_name(LayerType type);

// Where a node sits on the network editor's canvas. Only the editor and project files use it.
struct CanvasPosition {
    double x = 0;
    double y = 0;
};

struct LayerSpec {
    std::string name;  // unique, e.g. "conv1"
    LayerType type = LayerType::dense;
    std::vector<std::string> inputs;  // producing layers; empty means the previous layer in the list

    int units = 0;                                                    // Dense: output features; Conv2D: filters
    train::Initializer initializer = train::Initializer::he_uniform;  // Dense, Conv2D kernels
    Conv2dGeometry conv;                                              // Conv2D
    PoolGeometry pool;                                                // MaxPool2D, AvgPool2D
    Activation activation = Activation::relu;                         // Activation
    float slope = 0.01f;                                              // LeakyReLU
    float rate = 0.5f;                                                // Dropout
    float momentum = 0.99f;                                           // BatchNorm (Keras default)
    float epsilon = 1e-3f;                                            // BatchNorm (Keras default)

    // The node on the editor's canvas; none for a layer built in code, which a project file then
    // places in a left-to-right chain.
    std::optional<CanvasPosition> position;
};

enum class LossKind { softmax_cross_entropy, mean_squared_error };

struct NetworkSpec {
    Shape input{1, 1, 28, 28};      // one sample: n is ignored
    std::vector<LayerSpec> layers;  // the first is usually the input layer; the last is the output
    LossKind loss = LossKind::softmax_cross_entropy;
    // A project file and the editor list every connection, so there a layer with no inputs is
    // unconnected (a problem the graph report names) rather than reading the previous layer.
    bool explicit_inputs = false;
};

// Convenience builders for code and tests: spec("fc1", LayerType::dense).with_units(128)...
LayerSpec input_layer(std::string name = "input");
LayerSpec dense(std::string name, int units, train::Initializer initializer = train::Initializer::he_uniform);
LayerSpec conv2d(std::string name, int filters, int kernel, int stride = 1, Padding padding = Padding::valid);
LayerSpec max_pool(std::string name, int size, int stride);
LayerSpec avg_pool(std::string name, int size, int stride);
LayerSpec global_avg_pool(std::string name);
LayerSpec flatten(std::string name);
LayerSpec activation(std::string name, Activation kind, float slope = 0.01f);
LayerSpec dropout(std::string name, float rate);
LayerSpec batch_norm(std::string name);
LayerSpec add(std::string name, std::vector<std::string> inputs);
LayerSpec concat(std::string name, std::vector<std::string> inputs);
// The same layer reading from the named layers instead of the previous one.
LayerSpec from(LayerSpec layer, std::vector<std::string> inputs);

}  // namespace bps::model
