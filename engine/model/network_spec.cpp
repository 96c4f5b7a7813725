#include "engine/model/network_spec.h"

namespace bps::model {

const char* layer_type_name(LayerType type) {
    switch (type) {
        case LayerType::input:
            return "Input";
        case LayerType::dense:
            return "Dense";
        case LayerType::conv2d:
            return "Conv2D";
        case LayerType::max_pool:
            return "MaxPool2D";
        case LayerType::avg_pool:
            return "AvgPool2D";
        case LayerType::global_avg_pool:
            return "GlobalAveragePooling2D";
        case LayerType::flatten:
            return "Flatten";
        case LayerType::activation:
            return "Activation";
        case LayerType::dropout:
            return "Dropout";
        case LayerType::batch_norm:
            return "BatchNormalization";
        case LayerType::add:
            return "Add";
        case LayerType::concat:
            return "Concatenate";
    }
    return "Layer";
}

namespace {
LayerSpec make(std::string name, LayerType type) {
    LayerSpec layer;
    layer.name = std::move(name);
    layer.type = type;
    return layer;
}
}  // namespace

LayerSpec input_layer(std::string name) {
    return make(std::move(name), LayerType::input);
}

LayerSpec dense(std::string name, int units, train::Initializer initializer) {
    LayerSpec layer = make(std::move(name), LayerType::dense);
    layer.units = units;
    layer.initializer = initializer;
    return layer;
}

LayerSpec conv2d(std::string name, int filters, int kernel, int stride, Padding padding) {
    LayerSpec layer = make(std::move(name), LayerType::conv2d);
    layer.units = filters;
    layer.conv = Conv2dGeometry{kernel, kernel, stride, stride, padding};
    return layer;
}

LayerSpec max_pool(std::string name, int size, int stride) {
    LayerSpec layer = make(std::move(name), LayerType::max_pool);
    layer.pool = PoolGeometry{size, size, stride, stride};
    return layer;
}

LayerSpec avg_pool(std::string name, int size, int stride) {
    LayerSpec layer = make(std::move(name), LayerType::avg_pool);
    layer.pool = PoolGeometry{size, size, stride, stride};
    return layer;
}

LayerSpec global_avg_pool(std::string name) {
    return make(std::move(name), LayerType::global_avg_pool);
}
LayerSpec flatten(std::string name) {
    return make(std::move(name), LayerType::flatten);
}

LayerSpec activation(std::string name, Activation kind, float slope) {
    LayerSpec layer = make(std::move(name), LayerType::activation);
    layer.activation = kind;
    layer.slope = slope;
    return layer;
}

LayerSpec dropout(std::string name, float rate) {
    LayerSpec layer = make(std::move(name), LayerType::dropout);
    layer.rate = rate;
    return layer;
}

LayerSpec batch_norm(std::string name) {
    return make(std::move(name), LayerType::batch_norm);
}

LayerSpec add(std::string name, std::vector<std::string> inputs) {
    return from(make(std::move(name), LayerType::add), std::move(inputs));
}

LayerSpec concat(std::string name, std::vector<std::string> inputs) {
    return from(make(std::move(name), LayerType::concat), std::move(inputs));
}

LayerSpec from(LayerSpec layer, std::vector<std::string> inputs) {
    layer.inputs = std::move(inputs);
    return layer;
}

}  // namespace bps::model
