#include "engine/runs/python_network.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/train/initializer.h"

namespace bps::session {

using model::LayerAnalysis;
using model::LayerType;

std::string cat(std::initializer_list<std::string_view> parts) {
    std::string text;
    for (const std::string_view part : parts) text += part;
    return text;
}

std::string py_string(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

std::string py_float(float value) {
    char text[32];
    for (int digits = 1; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
        if (std::strtof(text, nullptr) == value) break;
    }
    return text;
}

std::string py_floats(const std::vector<float>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) text += ", ";
        text += py_float(values[i]);
    }
    return text + "]";
}

std::string pair_text(int a, int b) {
    return cat({"(", std::to_string(a), ", ", std::to_string(b), ")"});
}

namespace {

// Layer names as Python identifiers: other characters become '_', keywords and leading digits get
// a prefix, and clashes a suffix.
std::vector<std::string> identifiers(const model::GraphAnalysis& analysis) {
    static const std::set<std::string> reserved = {
        "False", "None",     "True",  "and",    "as",    "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif",  "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",    "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",   "while",  "with",   "yield",    "self",
        "torch", "nn",       "F",     "np",     "keras", "layers", "tf",     "model",    "x"};
    std::vector<std::string> names;
    std::set<std::string> taken;
    for (const LayerAnalysis& layer : analysis.layers) {
        std::string name;
        for (const char c : layer.spec.name) {
            const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            name += word ? c : '_';
        }
        if (name.empty() || (name[0] >= '0' && name[0] <= '9') || reserved.count(name)) name = cat({"layer_", name});
        std::string unique = name;
        for (int n = 2; taken.count(unique); ++n) unique = cat({name, "_", std::to_string(n)});
        taken.insert(unique);
        names.push_back(unique);
    }
    return names;
}

// Whether each layer's output is a feature map (N, C, H, W / N, H, W, C) rather than flat (N, F).
std::vector<bool> feature_maps(const model::GraphAnalysis& analysis) {
    std::vector<bool> map(analysis.layers.size(), true);
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        const bool input_map = layer.inputs.empty() || map[static_cast<std::size_t>(layer.inputs.front())];
        switch (layer.spec.type) {
            case LayerType::input:
                map[i] = true;
                break;
            case LayerType::flatten:
            case LayerType::dense:
            case LayerType::global_avg_pool:
                map[i] = false;
                break;
            default:
                map[i] = input_map;
        }
    }
    return map;
}

}  // namespace

Network network_of(const project::Project& project, const ModelCard& card) {
    Network network{model::analyse_graph(project::project_network(project, card.shape)), {}, {}};
    network.names = identifiers(network.analysis);
    network.maps = feature_maps(network.analysis);
    return network;
}

std::string input_names(const Network& network, const LayerAnalysis& layer) {
    std::string text;
    for (std::size_t i = 0; i < layer.inputs.size(); ++i) {
        if (i > 0) text += ", ";
        text += network.names[static_cast<std::size_t>(layer.inputs[i])];
    }
    return text;
}

bool input_is_map(const Network& network, std::size_t i) {
    const LayerAnalysis& layer = network.analysis.layers[i];
    return !layer.inputs.empty() && network.maps[static_cast<std::size_t>(layer.inputs[0])];
}

TorchLayers torch_layers(const Network& network) {
    const model::GraphAnalysis& analysis = network.analysis;
    std::ostringstream modules, forward, loading;
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        const model::LayerSpec& spec = layer.spec;
        const std::string& name = network.names[i];
        const std::string inputs = input_names(network, layer);
        const Shape in =
            layer.inputs.empty() ? Shape{} : analysis.layers[static_cast<std::size_t>(layer.inputs[0])].output;
        const bool input_map = !layer.inputs.empty() && network.maps[static_cast<std::size_t>(layer.inputs[0])];
        const std::string file_name = py_string(spec.name);
        const std::string shape_comment = cat({"  # ", layer.output.sample_text()});
        switch (spec.type) {
            case LayerType::input:
                break;
            case LayerType::dense:
                modules << "        self." << name << " = nn.Linear(" << in.per_sample() << ", " << spec.units << ")\n";
                forward << "        " << name << " = self." << name << "(" << inputs << (input_map ? ".flatten(1)" : "")
                        << ")" << shape_comment << "\n";
                loading << "        # Keras's Dense kernel is (inputs, units); PyTorch's weight is (units, inputs).\n"
                        << "        model." << name << ".weight.copy_(weight(" << file_name << ", \"kernel\").T)\n"
                        << "        model." << name << ".bias.copy_(weight(" << file_name << ", \"bias\"))\n";
                break;
            case LayerType::conv2d: {
                const model::Conv2dGeometry& g = spec.conv;
                modules << "        self." << name << " = nn.Conv2d(" << in.c << ", " << spec.units
                        << ", kernel_size=" << pair_text(g.kernel_h, g.kernel_w)
                        << ", stride=" << pair_text(g.stride_h, g.stride_w) << ")\n";
                std::string source = inputs;
                if (g.padding == model::Padding::same) {
                    // TensorFlow's 'same': the padding is split with the larger half after.
                    const model::ConvAxis rows = model::conv_axis(in.h, g.kernel_h, g.stride_h, g.padding);
                    const model::ConvAxis columns = model::conv_axis(in.w, g.kernel_w, g.stride_w, g.padding);
                    const int total_h = std::max((rows.out - 1) * g.stride_h + g.kernel_h - in.h, 0);
                    const int total_w = std::max((columns.out - 1) * g.stride_w + g.kernel_w - in.w, 0);
                    source = cat({"F.pad(", inputs, ", (", std::to_string(columns.pad_before), ", ",
                                  std::to_string(total_w - columns.pad_before), ", ", std::to_string(rows.pad_before),
                                  ", ", std::to_string(total_h - rows.pad_before), "))"});
                    forward << "        # 'same' padding as Keras pads: (left, right, top, bottom)\n";
                }
                forward << "        " << name << " = self." << name << "(" << source << ")" << shape_comment << "\n";
                loading << "        # Keras's Conv2D kernel is (kh, kw, in, out); PyTorch's is (out, in, kh, kw).\n"
                        << "        model." << name << ".weight.copy_(weight(" << file_name
                        << ", \"kernel\").permute(3, 2, 0, 1))\n"
                        << "        model." << name << ".bias.copy_(weight(" << file_name << ", \"bias\"))\n";
                break;
            }
            case LayerType::max_pool:
            case LayerType::avg_pool:
                forward << "        " << name << " = F." << (spec.type == LayerType::max_pool ? "max" : "avg")
                        << "_pool2d(" << inputs << ", kernel_size=" << pair_text(spec.pool.size_h, spec.pool.size_w)
                        << ", stride=" << pair_text(spec.pool.stride_h, spec.pool.stride_w) << ")" << shape_comment
                        << "\n";
                break;
            case LayerType::global_avg_pool:
                forward << "        " << name << " = " << inputs << ".mean(dim=(2, 3))" << shape_comment << "\n";
                break;
            case LayerType::flatten:
                if (input_map)
                    forward << "        " << name << " = " << inputs
                            << ".permute(0, 2, 3, 1).flatten(1)  # channels-last, as Keras flattens\n";
                else
                    forward << "        " << name << " = " << inputs << "  # already flat\n";
                break;
            case LayerType::activation:
                if (spec.activation == model::Activation::leaky_relu)
                    forward << "        " << name << " = F.leaky_relu(" << inputs << ", " << py_float(spec.slope)
                            << ")\n";
                else if (spec.activation == model::Activation::relu)
                    forward << "        " << name << " = F.relu(" << inputs << ")\n";
                else
                    forward << "        " << name << " = torch." << project::format::activation(spec.activation) << "("
                            << inputs << ")\n";
                break;
            case LayerType::dropout:
                modules << "        self." << name << " = nn.Dropout(" << py_float(spec.rate) << ")\n";
                forward << "        " << name << " = self." << name << "(" << inputs
                        << ")  # nothing dropped in eval()\n";
                break;
            case LayerType::batch_norm:
                modules << "        self." << name << " = nn.BatchNorm" << (input_map ? "2d(" : "1d(") << layer.output.c
                        << ", eps=" << py_float(spec.epsilon) << ")\n";
                forward << "        " << name << " = self." << name << "(" << inputs << ")\n";
                loading << "        model." << name << ".weight.copy_(weight(" << file_name << ", \"gamma\"))\n"
                        << "        model." << name << ".bias.copy_(weight(" << file_name << ", \"beta\"))\n"
                        << "        model." << name << ".running_mean.copy_(weight(" << file_name
                        << ", \"moving_mean\"))\n"
                        << "        model." << name << ".running_var.copy_(weight(" << file_name
                        << ", \"moving_variance\"))\n";
                break;
            case LayerType::add: {
                std::string sum;
                for (std::size_t k = 0; k < layer.inputs.size(); ++k)
                    sum += cat({k > 0 ? " + " : "", network.names[static_cast<std::size_t>(layer.inputs[k])]});
                forward << "        " << name << " = " << sum << "\n";
                break;
            }
            case LayerType::concat:
                forward << "        " << name << " = torch.cat([" << inputs << "], dim=1)  # along the channels"
                        << shape_comment << "\n";
                break;
        }
    }
    return TorchLayers{modules.str(), forward.str(), loading.str()};
}

std::string keras_layers(const Network& network, bool initializers) {
    const model::GraphAnalysis& analysis = network.analysis;
    std::ostringstream body;
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        const model::LayerSpec& spec = layer.spec;
        const std::string& name = network.names[i];
        const std::string inputs = input_names(network, layer);
        const std::string named = initializers && (spec.type == LayerType::dense || spec.type == LayerType::conv2d)
                                      ? cat({"kernel_initializer=\"", train::initializer_name(spec.initializer),
                                             "\", name=", py_string(spec.name)})
                                      : cat({"name=", py_string(spec.name)});
        const bool input_map = !layer.inputs.empty() && network.maps[static_cast<std::size_t>(layer.inputs[0])];
        body << "    " << name << " = ";
        switch (spec.type) {
            case LayerType::input:
                body << "keras.Input(shape=(HEIGHT, WIDTH, CHANNELS), " << named << ")\n";
                break;
            case LayerType::dense:
                body << "layers.Dense(" << spec.units << ", " << named << ")("
                     << (input_map ? cat({"layers.Flatten()(", inputs, ")"}) : inputs) << ")\n";
                break;
            case LayerType::conv2d:
                body << "layers.Conv2D(" << spec.units << ", " << pair_text(spec.conv.kernel_h, spec.conv.kernel_w)
                     << ", strides=" << pair_text(spec.conv.stride_h, spec.conv.stride_w)
                     << ", padding=" << (spec.conv.padding == model::Padding::same ? "\"same\"" : "\"valid\"") << ", "
                     << named << ")(" << inputs << ")\n";
                break;
            case LayerType::max_pool:
            case LayerType::avg_pool:
                body << "layers." << (spec.type == LayerType::max_pool ? "MaxPooling2D(" : "AveragePooling2D(")
                     << pair_text(spec.pool.size_h, spec.pool.size_w)
                     << ", strides=" << pair_text(spec.pool.stride_h, spec.pool.stride_w) << ", " << named << ")("
                     << inputs << ")\n";
                break;
            case LayerType::global_avg_pool:
                body << "layers.GlobalAveragePooling2D(" << named << ")(" << inputs << ")\n";
                break;
            case LayerType::flatten:
                body << "layers.Flatten(" << named << ")(" << inputs << ")\n";
                break;
            case LayerType::activation:
                if (spec.activation == model::Activation::leaky_relu)
                    body << "layers.LeakyReLU(" << py_float(spec.slope) << ", " << named << ")(" << inputs << ")\n";
                else
                    body << "layers.Activation(\"" << project::format::activation(spec.activation) << "\", " << named
                         << ")(" << inputs << ")\n";
                break;
            case LayerType::dropout:
                body << "layers.Dropout(" << py_float(spec.rate) << ", " << named << ")(" << inputs << ")\n";
                break;
            case LayerType::batch_norm:
                body << "layers.BatchNormalization(momentum=" << py_float(spec.momentum)
                     << ", epsilon=" << py_float(spec.epsilon) << ", " << named << ")(" << inputs << ")\n";
                break;
            case LayerType::add:
                body << "layers.Add(" << named << ")([" << inputs << "])\n";
                break;
            case LayerType::concat:
                body << "layers.Concatenate(" << named << ")([" << inputs << "])  # along the channels\n";
                break;
        }
    }
    return body.str();
}

}  // namespace bps::session
