#include "engine/io/keras_layout.h"

#include <map>
#include <optional>

namespace bps::io {

namespace {

using model::LayerAnalysis;
using model::LayerType;

// For a flat tensor made from a feature map: Keras's feature k is our feature order[k]. Empty
// means the same order (any 4-D tensor, a Dense's output, a flattened 1x1 map).
using FlatOrder = std::vector<int>;

FlatOrder channels_last_order(const Shape& map) {
    FlatOrder order;
    order.reserve(map.per_sample());
    for (int h = 0; h < map.h; ++h)
        for (int w = 0; w < map.w; ++w)
            for (int c = 0; c < map.c; ++c) order.push_back((c * map.h + h) * map.w + w);
    return order;
}

std::vector<FlatOrder> flat_orders(const model::GraphAnalysis& analysis) {
    std::vector<FlatOrder> orders(analysis.layers.size());
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        if (layer.inputs.empty()) continue;
        const auto input = static_cast<std::size_t>(layer.inputs.front());
        const Shape& in = analysis.layers[input].output;
        switch (layer.spec.type) {
            case LayerType::flatten:
                orders[i] = in.h * in.w > 1 ? channels_last_order(in) : orders[input];
                break;
            case LayerType::activation:
            case LayerType::dropout:
            case LayerType::batch_norm:
            case LayerType::add:
                orders[i] = orders[input];
                break;
            case LayerType::concat: {
                if (layer.output.h * layer.output.w != 1) break;
                bool reordered = false;
                for (const int source : layer.inputs) reordered |= !orders[static_cast<std::size_t>(source)].empty();
                if (!reordered) break;
                int offset = 0;
                for (const int source : layer.inputs) {
                    const FlatOrder& part = orders[static_cast<std::size_t>(source)];
                    const int size = static_cast<int>(analysis.layers[static_cast<std::size_t>(source)].output.c);
                    for (int k = 0; k < size; ++k) orders[i].push_back(offset + (part.empty() ? k : part[k]));
                    offset += size;
                }
                break;
            }
            default:
                break;
        }
    }
    return orders;
}

// One weight as the engine holds it and as Keras names and shapes it.
struct WeightRole {
    std::string engine;  // "weight"
    std::string keras;   // "kernel"
    std::vector<int> engine_dims;
    std::vector<int> keras_dims;
};

// The weights of a layer, in Keras's order; none for a layer without parameters.
std::vector<WeightRole> roles_of(const model::GraphAnalysis& analysis, const LayerAnalysis& layer) {
    const Shape in = layer.inputs.empty() ? Shape{} : analysis.layers[static_cast<std::size_t>(layer.inputs[0])].output;
    const int units = layer.output.c;
    switch (layer.spec.type) {
        case LayerType::dense: {
            const auto inputs = static_cast<int>(in.per_sample());
            return {{"weight", "kernel", {units, inputs}, {inputs, units}}, {"bias", "bias", {units}, {units}}};
        }
        case LayerType::conv2d: {
            const int kh = layer.spec.conv.kernel_h, kw = layer.spec.conv.kernel_w;
            return {{"weight", "kernel", {units, in.c, kh, kw}, {kh, kw, in.c, units}},
                    {"bias", "bias", {units}, {units}}};
        }
        case LayerType::batch_norm:
            return {{"gamma", "gamma", {units}, {units}},
                    {"beta", "beta", {units}, {units}},
                    {"running_mean", "moving_mean", {units}, {units}},
                    {"running_var", "moving_variance", {units}, {units}}};
        default:
            return {};
    }
}

const FlatOrder& input_order(const LayerAnalysis& layer, const std::vector<FlatOrder>& orders) {
    static const FlatOrder none;
    return layer.inputs.empty() ? none : orders[static_cast<std::size_t>(layer.inputs.front())];
}

// Keras's values of one weight from the engine's (or back, with `to_keras` false).
std::vector<float> convert(const LayerAnalysis& layer, const WeightRole& role, const FlatOrder& order,
                           const std::vector<float>& values, bool to_keras) {
    std::vector<float> out(values.size());
    if (layer.spec.type == LayerType::dense && role.engine == "weight") {
        const int units = role.engine_dims[0], inputs = role.engine_dims[1];
        for (int k = 0; k < inputs; ++k) {
            const int feature = order.empty() ? k : order[static_cast<std::size_t>(k)];
            for (int u = 0; u < units; ++u) {
                const auto keras =
                    static_cast<std::size_t>(k) * static_cast<std::size_t>(units) + static_cast<std::size_t>(u);
                const auto engine =
                    static_cast<std::size_t>(u) * static_cast<std::size_t>(inputs) + static_cast<std::size_t>(feature);
                (to_keras ? out[keras] : out[engine]) = to_keras ? values[engine] : values[keras];
            }
        }
        return out;
    }
    if (layer.spec.type == LayerType::conv2d && role.engine == "weight") {
        const int co_count = role.engine_dims[0], ci_count = role.engine_dims[1];
        const int kh = role.engine_dims[2], kw = role.engine_dims[3];
        for (int co = 0; co < co_count; ++co)
            for (int ci = 0; ci < ci_count; ++ci)
                for (int y = 0; y < kh; ++y)
                    for (int x = 0; x < kw; ++x) {
                        const auto engine = static_cast<std::size_t>(((co * ci_count + ci) * kh + y) * kw + x);
                        const auto keras = static_cast<std::size_t>(((y * kw + x) * ci_count + ci) * co_count + co);
                        (to_keras ? out[keras] : out[engine]) = to_keras ? values[engine] : values[keras];
                    }
        return out;
    }
    // Per-feature vectors: a BatchNorm on a flattened feature map follows the features' order.
    if (layer.spec.type == LayerType::batch_norm && !order.empty()) {
        for (std::size_t k = 0; k < values.size(); ++k) {
            const auto feature = static_cast<std::size_t>(order[k]);
            (to_keras ? out[k] : out[feature]) = to_keras ? values[feature] : values[k];
        }
        return out;
    }
    return values;
}

std::string layer_text(const std::string& name, const std::string& file_name) {
    std::string text = "layer '";
    text += name;
    text += "'";
    if (file_name != name) {
        text += " (the file's '";
        text += file_name;
        text += "')";
    }
    return text;
}

}  // namespace

std::vector<KerasLayer> to_keras_layout(const model::GraphAnalysis& analysis, std::span<const NamedArray> arrays,
                                        const std::filesystem::path& source) {
    std::map<std::string, const NamedArray*> by_name;
    for (const NamedArray& array : arrays) by_name[array.name] = &array;
    const std::vector<FlatOrder> orders = flat_orders(analysis);
    std::vector<KerasLayer> layers;
    for (const LayerAnalysis& layer : analysis.layers) {
        KerasLayer keras{layer.spec.name, {}};
        for (const WeightRole& role : roles_of(analysis, layer)) {
            std::string name = layer.spec.name;
            name += '.';
            name += role.engine;
            const auto found = by_name.find(name);
            if (found == by_name.end()) throw WeightsFileError(source, "has no array '" + name + "' to save");
            if (found->second->dims != role.engine_dims) {
                std::string problem = "array '";
                problem += name;
                problem += "' is ";
                problem += dims_text(found->second->dims);
                problem += " but layer '";
                problem += layer.spec.name;
                problem += "' needs ";
                problem += dims_text(role.engine_dims);
                throw WeightsFileError(source, problem);
            }
            keras.weights.push_back({role.keras, role.keras_dims,
                                     convert(layer, role, input_order(layer, orders), found->second->values, true)});
        }
        layers.push_back(std::move(keras));
    }
    return layers;
}

std::vector<NamedArray> from_keras_layout(const model::GraphAnalysis& analysis, std::span<const KerasLayer> layers,
                                          const std::filesystem::path& source) {
    std::vector<const LayerAnalysis*> weighted;
    for (const LayerAnalysis& layer : analysis.layers)
        if (!roles_of(analysis, layer).empty()) weighted.push_back(&layer);
    std::vector<const KerasLayer*> stored;
    std::map<std::string, const KerasLayer*> stored_by_name;
    for (const KerasLayer& layer : layers) {
        if (layer.weights.empty()) continue;
        stored.push_back(&layer);
        stored_by_name[layer.name] = &layer;
    }
    bool by_name = true;
    for (const LayerAnalysis* layer : weighted) by_name &= stored_by_name.count(layer->spec.name) > 0;
    if (!by_name && stored.size() != weighted.size()) {
        std::string problem = "holds ";
        problem += std::to_string(stored.size());
        problem += stored.size() == 1 ? " layer" : " layers";
        problem += " with weights but the network has ";
        problem += std::to_string(weighted.size());
        problem += "; it was saved from a different network";
        throw WeightsFileError(source, problem);
    }

    const std::vector<FlatOrder> orders = flat_orders(analysis);
    std::vector<NamedArray> arrays;
    for (std::size_t index = 0; index < weighted.size(); ++index) {
        const LayerAnalysis& layer = *weighted[index];
        const KerasLayer& keras = by_name ? *stored_by_name.at(layer.spec.name) : *stored[index];
        const std::string which = layer_text(layer.spec.name, keras.name);
        const std::vector<WeightRole> roles = roles_of(analysis, layer);
        for (const WeightRole& role : roles) {
            const NamedArray* found = nullptr;
            for (const NamedArray& weight : keras.weights)
                if (weight.name == role.keras) found = &weight;
            if (!found) {
                std::string problem = which;
                problem += " has no ";
                problem += role.keras;
                problem += " (";
                problem += model::layer_type_name(layer.spec.type);
                problem += " needs ";
                for (std::size_t r = 0; r < roles.size(); ++r) {
                    if (r > 0) problem += ", ";
                    problem += roles[r].keras;
                }
                problem += ")";
                throw WeightsFileError(source, problem);
            }
            if (found->dims != role.keras_dims) {
                std::string problem = which;
                problem += ": ";
                problem += role.keras;
                problem += " is ";
                problem += dims_text(found->dims);
                problem += " in the file but the network needs ";
                problem += dims_text(role.keras_dims);
                throw WeightsFileError(source, problem);
            }
            std::string name = layer.spec.name;
            name += '.';
            name += role.engine;
            arrays.push_back(
                {name, role.engine_dims, convert(layer, role, input_order(layer, orders), found->values, false)});
        }
        if (keras.weights.size() > roles.size()) {
            std::string problem = which;
            problem += " holds ";
            problem += std::to_string(keras.weights.size());
            problem += " weights but ";
            problem += model::layer_type_name(layer.spec.type);
            problem += " has ";
            problem += std::to_string(roles.size());
            throw WeightsFileError(source, problem);
        }
    }
    return arrays;
}

}  // namespace bps::io
