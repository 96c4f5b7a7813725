#include "engine/runs/onnx_export.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "engine/base/build_info.h"
#include "engine/model/graph_analysis.h"
#include "engine/runs/python_network.h"

namespace bps::session {

namespace {

using model::LayerAnalysis;
using model::LayerType;

constexpr int opset = 13;
constexpr int ir_version = 8;  // ONNX 1.12's IR, which opset 13 models are read with

// Names that stay unique: ONNX wants one name per value, and readers expect one per node.
class Names {
public:
    void reserve(const std::string& name) { taken_.insert(name); }
    std::string unique(const std::string& wanted) {
        std::string name = wanted;
        for (int n = 2; taken_.count(name); ++n) name = cat({wanted, "_", std::to_string(n)});
        taken_.insert(name);
        return name;
    }

private:
    std::set<std::string> taken_;
};

// A value flowing through the graph: its name and whether it is a feature map (N, C, H, W) or
// flat features (N, F).
struct Value {
    std::string name;
    bool map = true;
};

class GraphBuilder {
public:
    GraphBuilder(onnx::GraphProto& graph, const std::vector<io::NamedArray>& arrays,
                 const std::filesystem::path& source)
        : graph_(graph), source_(source) {
        for (const io::NamedArray& array : arrays) arrays_[array.name] = &array;
    }

    Names& node_names() { return nodes_; }
    Names& value_names() { return values_; }

    onnx::NodeProto& node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                          const std::string& output) {
        onnx::NodeProto& node = *graph_.add_node();
        node.set_op_type(op);
        node.set_name(name);
        for (const std::string& input : inputs) node.add_input(input);
        node.add_output(output);
        return node;
    }

    // One of the engine's arrays of `layer` ("weight", "bias", "gamma", ...) as an initializer.
    std::string weight(const std::string& layer, const std::string& role) {
        const std::string engine_name = cat({layer, ".", role});
        const auto found = arrays_.find(engine_name);
        if (found == arrays_.end())
            throw io::WeightsFileError(source_, cat({"has no array '", engine_name, "' for layer '", layer, "'"}));
        const io::NamedArray& array = *found->second;
        onnx::TensorProto& tensor = *graph_.add_initializer();
        tensor.set_name(values_.unique(engine_name));
        tensor.set_data_type(onnx::TensorProto::FLOAT);
        for (const int dim : array.dims) tensor.add_dims(dim);
        tensor.mutable_float_data()->Add(array.values.begin(), array.values.end());
        return tensor.name();
    }

    std::string int64s(const std::string& wanted, const std::vector<std::int64_t>& values) {
        onnx::TensorProto& tensor = *graph_.add_initializer();
        tensor.set_name(values_.unique(wanted));
        tensor.set_data_type(onnx::TensorProto::INT64);
        tensor.add_dims(static_cast<std::int64_t>(values.size()));
        for (const std::int64_t value : values) tensor.add_int64_data(value);
        return tensor.name();
    }

    std::string scalar(const std::string& wanted, float value) {
        onnx::TensorProto& tensor = *graph_.add_initializer();
        tensor.set_name(values_.unique(wanted));
        tensor.set_data_type(onnx::TensorProto::FLOAT);
        tensor.add_float_data(value);
        return tensor.name();
    }

    // A feature map of `layer`'s input as flat features (ONNX's Flatten is channels-first, as the
    // engine's own); flat features pass unchanged.
    std::string flat(const Value& value, const std::string& layer) {
        if (!value.map) return value.name;
        const std::string output = values_.unique(cat({layer, "/flatten"}));
        node("Flatten", nodes_.unique(cat({layer, "/flatten"})), {value.name}, output);
        return output;
    }

    // Flat features of `layer`'s input as a 1x1 feature map; maps pass unchanged.
    std::string map(const Value& value, const std::string& layer) {
        if (value.map) return value.name;
        const std::string output = values_.unique(cat({layer, "/as_map"}));
        node("Unsqueeze", nodes_.unique(cat({layer, "/as_map"})), {value.name, int64s(cat({layer, "/axes"}), {2, 3})},
             output);
        return output;
    }

private:
    onnx::GraphProto& graph_;
    std::filesystem::path source_;  // the weights file, for messages
    std::map<std::string, const io::NamedArray*> arrays_;
    Names nodes_, values_;
};

void set_ints(onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& values) {
    onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(onnx::AttributeProto::INTS);
    for (const std::int64_t value : values) attribute.add_ints(value);
}

void set_int(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
    onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(onnx::AttributeProto::INT);
    attribute.set_i(value);
}

void set_float(onnx::NodeProto& node, const std::string& name, float value) {
    onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(onnx::AttributeProto::FLOAT);
    attribute.set_f(value);
}

// A float32 tensor value with a symbolic batch dimension and fixed other dimensions.
void describe(onnx::ValueInfoProto& info, const std::string& name, const std::vector<int>& dims) {
    info.set_name(name);
    onnx::TypeProto_Tensor& tensor = *info.mutable_type()->mutable_tensor_type();
    tensor.set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto& shape = *tensor.mutable_shape();
    shape.add_dim()->set_dim_param("batch");
    for (const int dim : dims) shape.add_dim()->set_dim_value(dim);
}

void add_metadata(onnx::ModelProto& model, const std::string& key, const std::string& value) {
    onnx::StringStringEntryProto& entry = *model.add_metadata_props();
    entry.set_key(key);
    entry.set_value(value);
}

std::string json_text(const nlohmann::json& json) {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One project layer as ONNX nodes; returns its output value.
Value add_layer(GraphBuilder& graph, const LayerAnalysis& layer, const std::vector<Value>& inputs, const Shape& in) {
    const model::LayerSpec& spec = layer.spec;
    const std::string& name = spec.name;
    const std::string output = graph.value_names().unique(name);
    const Value& first = inputs.front();
    switch (spec.type) {
        case LayerType::input:
            graph.node("Identity", name, {first.name}, output);
            return {output, true};
        case LayerType::dense: {
            onnx::NodeProto& node =
                graph.node("Gemm", name,
                           {graph.flat(first, name), graph.weight(name, "weight"), graph.weight(name, "bias")}, output);
            set_int(node, "transB", 1);  // the engine's weight is (units, inputs)
            return {output, false};
        }
        case LayerType::conv2d: {
            const model::Conv2dGeometry& g = spec.conv;
            const std::string source = graph.map(first, name);
            onnx::NodeProto& node =
                graph.node("Conv", name, {source, graph.weight(name, "weight"), graph.weight(name, "bias")}, output);
            set_ints(node, "kernel_shape", {g.kernel_h, g.kernel_w});
            set_ints(node, "strides", {g.stride_h, g.stride_w});
            int top = 0, left = 0, bottom = 0, right = 0;
            if (g.padding == model::Padding::same) {
                // TensorFlow's 'same': the padding is split with the larger half after.
                const model::ConvAxis rows = model::conv_axis(in.h, g.kernel_h, g.stride_h, g.padding);
                const model::ConvAxis columns = model::conv_axis(in.w, g.kernel_w, g.stride_w, g.padding);
                top = rows.pad_before;
                left = columns.pad_before;
                bottom = std::max((rows.out - 1) * g.stride_h + g.kernel_h - in.h, 0) - top;
                right = std::max((columns.out - 1) * g.stride_w + g.kernel_w - in.w, 0) - left;
            }
            set_ints(node, "pads", {top, left, bottom, right});
            return {output, true};
        }
        case LayerType::max_pool:
        case LayerType::avg_pool: {
            onnx::NodeProto& node = graph.node(spec.type == LayerType::max_pool ? "MaxPool" : "AveragePool", name,
                                               {graph.map(first, name)}, output);
            set_ints(node, "kernel_shape", {spec.pool.size_h, spec.pool.size_w});
            set_ints(node, "strides", {spec.pool.stride_h, spec.pool.stride_w});
            return {output, true};
        }
        case LayerType::global_avg_pool: {
            // GlobalAveragePool keeps 1x1 spatial axes; the engine's layer gives flat features.
            const std::string pooled = graph.value_names().unique(cat({name, "/pooled"}));
            graph.node("GlobalAveragePool", name, {graph.map(first, name)}, pooled);
            graph.node("Flatten", graph.node_names().unique(cat({name, "/flatten"})), {pooled}, output);
            return {output, false};
        }
        case LayerType::flatten:
            if (first.map)
                graph.node("Flatten", name, {first.name}, output);  // channels-first, as the engine flattens
            else
                graph.node("Identity", name, {first.name}, output);  // already flat
            return {output, false};
        case LayerType::activation: {
            static const std::map<model::Activation, const char*> ops = {{model::Activation::relu, "Relu"},
                                                                         {model::Activation::leaky_relu, "LeakyRelu"},
                                                                         {model::Activation::sigmoid, "Sigmoid"},
                                                                         {model::Activation::tanh, "Tanh"}};
            onnx::NodeProto& node = graph.node(ops.at(spec.activation), name, {first.name}, output);
            if (spec.activation == model::Activation::leaky_relu) set_float(node, "alpha", spec.slope);
            return {output, first.map};
        }
        case LayerType::dropout:
            // Without training_mode Dropout passes its input unchanged, as the engine predicts.
            graph.node("Dropout", name, {first.name, graph.scalar(cat({name, "/ratio"}), spec.rate)}, output);
            return {output, first.map};
        case LayerType::batch_norm: {
            onnx::NodeProto& node = graph.node("BatchNormalization", name,
                                               {first.name, graph.weight(name, "gamma"), graph.weight(name, "beta"),
                                                graph.weight(name, "running_mean"), graph.weight(name, "running_var")},
                                               output);
            set_float(node, "epsilon", spec.epsilon);
            set_float(node, "momentum", spec.momentum);
            return {output, first.map};
        }
        case LayerType::add:
        case LayerType::concat: {
            // Inputs of both kinds (a 1x1 map beside flat features, which the engine treats alike)
            // are all flattened first.
            bool all_maps = true;
            for (const Value& input : inputs) all_maps = all_maps && input.map;
            std::vector<std::string> sources;
            for (std::size_t k = 0; k < inputs.size(); ++k)
                sources.push_back(all_maps ? inputs[k].name
                                           : graph.flat(inputs[k], cat({name, "/", std::to_string(k + 1)})));
            if (spec.type == LayerType::concat) {
                set_int(graph.node("Concat", name, sources, output), "axis", 1);  // along the channels
                return {output, all_maps};
            }
            // ONNX's Add takes two inputs: a longer sum is a chain whose last node is the layer.
            std::string sum = sources.front();
            for (std::size_t k = 1; k < sources.size(); ++k) {
                const bool last = k + 1 == sources.size();
                const std::string part =
                    last ? output : graph.value_names().unique(cat({name, "/", std::to_string(k)}));
                graph.node("Add", last ? name : graph.node_names().unique(cat({name, "/", std::to_string(k)})),
                           {sum, sources[k]}, part);
                sum = part;
            }
            if (sources.size() == 1) graph.node("Identity", name, {sum}, output);
            return {output, all_maps};
        }
    }
    throw model::ModelError(cat({"layer '", name, "' has a kind the ONNX export does not know"}));
}

}  // namespace

std::string onnx_model(const SavedWeights& weights) {
    const project::Project project = project_of(weights);
    const ModelCard& card = card_of(weights);
    const std::vector<io::NamedArray> arrays = weights_for_network(weights, project, card.shape);
    const model::GraphAnalysis analysis = model::analyse_graph(project::project_network(project, card.shape));
    const std::string project_name = project.name.empty() ? card.project : project.name;
    const bool softmax = project.network.loss == model::LossKind::softmax_cross_entropy;
    const std::string input_name = "image", output_name = softmax ? "probabilities" : "outputs";

    onnx::ModelProto model;
    model.set_ir_version(ir_version);
    onnx::OperatorSetIdProto& operators = *model.add_opset_import();
    operators.set_domain("");
    operators.set_version(opset);
    model.set_producer_name("Backprop Studio");
    model.set_producer_version(program_version_number());
    model.set_doc_string(cat({"The network of the Backprop Studio project '", project_name,
                              "' with its trained weights. Input 'image': N x C x H x W float32, pixels "
                              "scaled to [0, 1] and normalised per channel as the metadata says."}));

    onnx::GraphProto& graph_proto = *model.mutable_graph();
    graph_proto.set_name(project_name.empty() ? std::string("network") : project_name);
    GraphBuilder graph(graph_proto, arrays, weights.file);
    graph.value_names().reserve(input_name);
    graph.value_names().reserve(output_name);
    for (const LayerAnalysis& layer : analysis.layers) graph.node_names().reserve(layer.spec.name);
    describe(*graph_proto.add_input(), input_name, {card.shape.channels, card.shape.height, card.shape.width});

    std::vector<Value> outputs;
    int input_layers = 0;
    for (const LayerAnalysis& layer : analysis.layers) {
        std::vector<Value> inputs;
        for (const int source : layer.inputs) inputs.push_back(outputs[static_cast<std::size_t>(source)]);
        if (layer.spec.type == LayerType::input) {
            if (++input_layers > 1)
                throw model::ModelError("the ONNX export takes networks with one input layer; '" + layer.spec.name +
                                        "' is another");
            inputs = {{input_name, true}};
        }
        if (inputs.empty()) throw model::ModelError("layer '" + layer.spec.name + "' has no input");
        const Shape in =
            layer.inputs.empty() ? Shape{} : analysis.layers[static_cast<std::size_t>(layer.inputs[0])].output;
        outputs.push_back(add_layer(graph, layer, inputs, in));
    }

    // The network's output as N x classes: probabilities after a softmax, or the last layer.
    const Value& last = outputs.back();
    const std::string final_layer = analysis.layers.back().spec.name;
    const std::string features = graph.flat(last, final_layer);
    graph.node(softmax ? "Softmax" : "Identity", graph.node_names().unique(softmax ? "softmax" : "outputs"), {features},
               output_name);
    describe(*graph_proto.add_output(), output_name, {static_cast<int>(analysis.layers.back().output.per_sample())});

    nlohmann::json classes = nlohmann::json::array();
    for (const std::string& name : card.class_names) classes.push_back(name);
    add_metadata(model, "classes", json_text(classes));
    add_metadata(model, "normalization_mean", json_text(card.normalization.mean));
    add_metadata(model, "normalization_stddev", json_text(card.normalization.stddev));
    add_metadata(model, "input_height", std::to_string(card.shape.height));
    add_metadata(model, "input_width", std::to_string(card.shape.width));
    add_metadata(model, "input_channels", std::to_string(card.shape.channels));
    add_metadata(model, "input_layout", "NCHW");
    add_metadata(model, "pixel_scale", "1/255");
    add_metadata(model, "project", project_name);
    return model.SerializeAsString();
}

}  // namespace bps::session
