#include "engine/runs/code_export.h"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "engine/model/graph_analysis.h"
#include "engine/project/project_format.h"

namespace bps::session {

namespace {

using model::LayerAnalysis;
using model::LayerType;

// Pieces joined by appending (GCC 12's -Wrestrict misfires on chains of operator+ with literals).
std::string cat(std::initializer_list<std::string_view> parts) {
    std::string text;
    for (const std::string_view part : parts) text += part;
    return text;
}

// A Python string literal (JSON's escapes are Python's too); bytes that are not UTF-8 become U+FFFD.
std::string py_string(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

// The shortest text that reads back as the same float (0.99f prints as 0.99, not 0.990000009).
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

struct Network {
    model::GraphAnalysis analysis;
    std::vector<std::string> names;
    std::vector<bool> maps;
};

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

// What both scripts share: where they come from, the constants of the model card, and reading images.
std::string preamble(const project::Project& project, const ModelCard& card, const std::string& framework,
                     const std::string& install) {
    const std::string name = project.name.empty() ? card.project : project.name;
    std::ostringstream out;
    out << "#!/usr/bin/env python3\n"
        << "\"\"\"The network of the Backprop Studio project " << py_string(name) << ", in " << framework << ".\n\n"
        << "It defines the same layers under the same names, loads the trained weights that Backprop Studio\n"
        << "exported (an HDF5 file in Keras's layout), and prints the three most probable classes of each\n"
        << "image given on the command line, as `backprop predict` does:\n\n"
        << "    python3 "
        << "SCRIPT.py IMAGE.png [IMAGE.png ...] [--json]\n\n"
        << "--json prints one JSON line per image with the probability of every class.\n"
        << "Needs: " << install << "\n\"\"\"\n";
    return out.str();
}

std::string constants(const ModelCard& card, const std::string& weights_file) {
    std::ostringstream out;
    out << "# The weights file, beside this script unless the path is absolute.\n"
        << "WEIGHTS = Path(__file__).resolve().parent / " << py_string(weights_file) << "\n"
        << "# What the network was trained on (the model card Backprop Studio keeps with the weights).\n"
        << "HEIGHT, WIDTH, CHANNELS = " << card.shape.height << ", " << card.shape.width << ", " << card.shape.channels
        << "\n"
        << "CLASS_NAMES = [";
    for (std::size_t i = 0; i < card.class_names.size(); ++i)
        out << (i > 0 ? ", " : "") << py_string(card.class_names[i]);
    out << "]\n"
        << "# Pixels are scaled to [0, 1], then normalised per channel: (x - MEAN) / STDDEV (empty: not at all).\n"
        << "MEAN = " << py_floats(card.normalization.mean) << "\n"
        << "STDDEV = " << py_floats(card.normalization.stddev) << "\n\n\n"
        << "def read_image(path):\n"
        << "    \"\"\"One image as a float32 array of HEIGHT x WIDTH x CHANNELS, scaled and normalised as in "
           "training.\n\n"
        << "    Images of another size are resized (bilinear); Backprop Studio's own resizing and colour\n"
        << "    conversion may differ slightly, so give images of the trained size for identical results.\n"
        << "    \"\"\"\n"
        << "    image = Image.open(path).convert(\"L\" if CHANNELS == 1 else \"RGB\")\n"
        << "    if image.size != (WIDTH, HEIGHT):\n"
        << "        image = image.resize((WIDTH, HEIGHT), Image.BILINEAR)\n"
        << "    pixels = np.asarray(image, dtype=np.float32).reshape(HEIGHT, WIDTH, CHANNELS) / np.float32(255)\n"
        << "    if MEAN:\n"
        << "        pixels = (pixels - np.array(MEAN, dtype=np.float32)) / np.array(STDDEV, dtype=np.float32)\n"
        << "    return pixels\n\n\n";
    return out.str();
}

std::string main_function(const std::string& predict_lines) {
    std::ostringstream out;
    out << "def main():\n"
        << "    parser = argparse.ArgumentParser(description=\"Predict the classes of images with the trained "
           "network.\")\n"
        << "    parser.add_argument(\"images\", nargs=\"+\", help=\"PNG or JPEG files\")\n"
        << "    parser.add_argument(\"--json\", action=\"store_true\", help=\"one JSON line per image, every class\")\n"
        << "    arguments = parser.parse_args()\n"
        << "    batch = np.stack([read_image(path) for path in arguments.images])  # N, H, W, C\n"
        << predict_lines << "    for path, row in zip(arguments.images, probabilities):\n"
        << "        if arguments.json:\n"
        << "            print(json.dumps({\"file\": path, \"probabilities\": [float(p) for p in row]}))\n"
        << "        else:\n"
        << "            top = np.argsort(-row, kind=\"stable\")[:3]\n"
        << "            print(path + \": \" + \", \".join(\"%s %.3f\" % (CLASS_NAMES[i], row[i]) for i in top))\n\n\n"
        << "if __name__ == \"__main__\":\n"
        << "    main()\n";
    return out.str();
}

}  // namespace

std::string pytorch_script(const project::Project& project, const ModelCard& card, const std::string& weights_file) {
    const Network network = network_of(project, card);
    const model::GraphAnalysis& analysis = network.analysis;
    std::ostringstream modules, forward, loading;
    const std::string& output = network.names.back();
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
    const bool softmax = project.network.loss == model::LossKind::softmax_cross_entropy;
    std::ostringstream out;
    out << preamble(project, card, "PyTorch", "pip install torch h5py numpy pillow")
        << "import argparse\nimport json\nfrom pathlib import Path\n\n"
        << "import h5py\nimport numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        << "from PIL import Image\n\n"
        << constants(card, weights_file) << "class Network(nn.Module):\n"
        << "    \"\"\"The project's network. Tensors are (batch, channels, height, width) until flattened.\"\"\"\n\n"
        << "    def __init__(self):\n        super().__init__()\n"
        << modules.str() << "\n"
        << "    def forward(self, " << network.names.front() << "):\n"
        << forward.str() << "        return "
        << (softmax ? cat({"F.softmax(", output, ", dim=1)  # class probabilities\n"}) : cat({output, "\n"})) << "\n\n"
        << "def load_weights(model, path):\n"
        << "    \"\"\"Copies the weights of a Keras-layout HDF5 file (layer/layer/kernel:0) into the model.\"\"\"\n"
        << "    with h5py.File(path, \"r\") as file, torch.no_grad():\n\n"
        << "        def weight(layer, name):\n"
        << "            return torch.from_numpy(np.asarray(file[layer][layer][name + \":0\"], dtype=np.float32))\n\n"
        << (loading.str().empty() ? std::string("        pass  # no layer has weights\n") : loading.str()) << "\n\n"
        << main_function(
               "    model = Network()\n"
               "    load_weights(model, WEIGHTS)\n"
               "    model.eval()  # BatchNorm uses its running statistics, Dropout drops nothing\n"
               "    with torch.no_grad():\n"
               "        probabilities = model(torch.from_numpy(batch).permute(0, 3, 1, 2)).numpy()\n");
    return out.str();
}

std::string keras_script(const project::Project& project, const ModelCard& card, const std::string& weights_file) {
    const Network network = network_of(project, card);
    const model::GraphAnalysis& analysis = network.analysis;
    std::ostringstream body;
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const LayerAnalysis& layer = analysis.layers[i];
        const model::LayerSpec& spec = layer.spec;
        const std::string& name = network.names[i];
        const std::string inputs = input_names(network, layer);
        const std::string named = cat({"name=", py_string(spec.name)});
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
    const bool softmax = project.network.loss == model::LossKind::softmax_cross_entropy;
    const std::string name = project.name.empty() ? card.project : project.name;
    std::ostringstream out;
    out << preamble(project, card, "Keras (TensorFlow)", "pip install tensorflow h5py numpy pillow")
        << "import argparse\nimport json\nfrom pathlib import Path\n\n"
        << "import numpy as np\nfrom PIL import Image\nfrom tensorflow import keras\nfrom tensorflow.keras import "
           "layers\n\n"
        << constants(card, weights_file) << "def build_network():\n"
        << "    \"\"\"The project's network, channels-last as Keras is: (batch, height, width, channels).\"\"\"\n"
        << body.str() << "    outputs = "
        << (softmax ? cat({"layers.Softmax(name=\"probabilities\")(", network.names.back(), ")\n"})
                    : cat({network.names.back(), "\n"}))
        << "    return keras.Model(inputs=" << network.names.front() << ", outputs=outputs, name=" << py_string(name)
        << ")\n\n\n"
        << main_function(
               "    model = build_network()\n"
               "    # by_name: the file's layers carry the project's names (Keras's h5 weights format).\n"
               "    model.load_weights(str(WEIGHTS), by_name=True)\n"
               "    probabilities = model.predict(batch, verbose=0)\n");
    return out.str();
}

}  // namespace bps::session
