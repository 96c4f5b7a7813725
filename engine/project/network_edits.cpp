#include "engine/project/network_edits.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/project/project.h"

namespace bps::project {

namespace {

using model::LayerSpec;
using model::LayerType;
using model::NetworkSpec;

PaletteEntry entry(std::string group, std::string label, std::string description, LayerSpec layer) {
    return PaletteEntry{std::move(group), std::move(label), std::move(description), std::move(layer)};
}

std::vector<PaletteEntry> make_palette() {
    using model::Activation;
    std::vector<PaletteEntry> entries;
    entries.push_back(entry("Input", "Input", "The images of the project's dataset enter the network here.",
                            model::input_layer("input")));
    entries.push_back(entry("Core", "Dense", "Every output unit weighs every input value (a fully connected layer).",
                            model::dense("fc", 128)));
    entries.push_back(entry("Core", "Flatten", "Lays an image's channels, rows and columns out as one long vector.",
                            model::flatten("flatten")));
    entries.push_back(entry("Core", "Dropout",
                            "While training, zeroes a random share of its inputs to fight overfitting.",
                            model::dropout("dropout", 0.5f)));
    entries.push_back(entry("Convolution", "Conv2D",
                            "Slides small learned filters over the image to find local patterns.",
                            model::conv2d("conv", 32, 3)));
    entries.push_back(entry("Pooling", "MaxPool2D", "Keeps the largest value of each window: halves the image size.",
                            model::max_pool("pool", 2, 2)));
    entries.push_back(entry("Pooling", "AvgPool2D", "Keeps the mean of each window: halves the image size.",
                            model::avg_pool("pool", 2, 2)));
    entries.push_back(entry("Pooling", "GlobalAveragePooling2D", "One mean per channel over the whole image.",
                            model::global_avg_pool("gap")));
    entries.push_back(entry("Normalisation", "BatchNormalization",
                            "Normalises each channel over the batch, so deeper networks train faster.",
                            model::batch_norm("bn")));
    entries.push_back(entry("Activation", "ReLU", "max(0, x): the usual choice between layers.",
                            model::activation("relu", Activation::relu)));
    entries.push_back(entry("Activation", "LeakyReLU", "Like ReLU, with a small slope for negative inputs.",
                            model::activation("leaky", Activation::leaky_relu)));
    entries.push_back(entry("Activation", "Sigmoid", "Squashes values into (0, 1).",
                            model::activation("sigmoid", Activation::sigmoid)));
    entries.push_back(
        entry("Activation", "Tanh", "Squashes values into (-1, 1).", model::activation("tanh", Activation::tanh)));
    entries.push_back(entry("Merge", "Add", "Adds inputs of the same shape element by element (a residual join).",
                            model::add("add", {})));
    entries.push_back(entry("Merge", "Concatenate", "Stacks inputs of the same image size along the channels.",
                            model::concat("concat", {})));
    return entries;
}

bool has_name(const NetworkSpec& spec, std::string_view name) {
    return layer_index(spec, name) >= 0;
}

std::string in_quotes(std::string_view name) {
    return "'" + std::string(name) + "'";
}

// Whether `to` is reached from `from` by following edges forward (from a layer to its readers).
bool feeds(const NetworkSpec& spec, std::string_view from, std::string_view to) {
    std::vector<std::string> frontier{std::string(from)};
    std::vector<std::string> seen;
    while (!frontier.empty()) {
        const std::string at = frontier.back();
        frontier.pop_back();
        if (at == to) return true;
        if (std::find(seen.begin(), seen.end(), at) != seen.end()) continue;
        seen.push_back(at);
        for (const LayerSpec& layer : spec.layers)
            if (std::find(layer.inputs.begin(), layer.inputs.end(), at) != layer.inputs.end())
                frontier.push_back(layer.name);
    }
    return false;
}

constexpr double column_width = 180.0;
constexpr double row_height = 110.0;
constexpr double origin_x = 40.0;
constexpr double centre_y = 200.0;

}  // namespace

const std::vector<PaletteEntry>& palette() {
    static const std::vector<PaletteEntry> entries = make_palette();
    return entries;
}

const PaletteEntry* palette_entry(std::string_view label) {
    for (const PaletteEntry& e : palette())
        if (e.label == label) return &e;
    return nullptr;
}

std::vector<std::string> palette_groups() {
    std::vector<std::string> groups;
    for (const PaletteEntry& e : palette())
        if (std::find(groups.begin(), groups.end(), e.group) == groups.end()) groups.push_back(e.group);
    return groups;
}

std::string unique_layer_name(const NetworkSpec& spec, std::string_view prefix, std::string_view wanted) {
    if (!wanted.empty() && !has_name(spec, wanted)) return std::string(wanted);
    for (int n = 1;; ++n) {
        std::string name = std::string(prefix) + std::to_string(n);
        if (!has_name(spec, name)) return name;
    }
}

int layer_index(const NetworkSpec& spec, std::string_view name) {
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
        if (spec.layers[i].name == name) return static_cast<int>(i);
    return -1;
}

bool takes_several_inputs(LayerType type) {
    return type == LayerType::add || type == LayerType::concat;
}

std::optional<std::string> connection_refusal(const NetworkSpec& spec, std::string_view from, std::string_view to) {
    const int source = layer_index(spec, from);
    const int target = layer_index(spec, to);
    if (source < 0) return in_quotes(from) + " is not a layer of this network";
    if (target < 0) return in_quotes(to) + " is not a layer of this network";
    if (from == to) return "a layer cannot read from itself";
    const LayerSpec& reader = spec.layers[static_cast<std::size_t>(target)];
    if (reader.type == LayerType::input)
        return in_quotes(to) + " is an Input layer and reads from no layer; the dataset feeds it";
    const auto& inputs = reader.inputs;
    if (std::find(inputs.begin(), inputs.end(), from) != inputs.end())
        return in_quotes(from) + " already feeds " + in_quotes(to);
    if (!takes_several_inputs(reader.type) && !inputs.empty())
        return in_quotes(to) + " takes one input and already reads from " + in_quotes(inputs.front()) +
               "; delete that connection first, or read both through an Add or Concatenate";
    if (feeds(spec, to, from))
        return "connecting " + in_quotes(from) + " to " + in_quotes(to) + " would make a cycle: " + in_quotes(to) +
               " already feeds " + in_quotes(from);
    return std::nullopt;
}

void remove_layers(NetworkSpec& spec, const std::vector<std::string>& names) {
    auto removed = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) != names.end(); };
    std::erase_if(spec.layers, [&](const LayerSpec& layer) { return removed(layer.name); });
    for (LayerSpec& layer : spec.layers) std::erase_if(layer.inputs, removed);
}

std::optional<std::string> rename_layer(NetworkSpec& spec, std::string_view from, std::string_view to) {
    const int index = layer_index(spec, from);
    if (index < 0) return in_quotes(from) + " is not a layer of this network";
    if (to.empty()) return "a layer needs a name";
    if (from == to) return std::nullopt;
    if (has_name(spec, to)) return "a layer is already named " + in_quotes(to) + "; names must be unique";
    spec.layers[static_cast<std::size_t>(index)].name = std::string(to);
    for (LayerSpec& layer : spec.layers)
        std::replace(layer.inputs.begin(), layer.inputs.end(), std::string(from), std::string(to));
    return std::nullopt;
}

void tidy_layout(NetworkSpec& spec) {
    // Column = the longest path from a layer that reads nothing; cycles (a broken graph) are cut
    // by never going deeper than the number of layers.
    const std::size_t count = spec.layers.size();
    std::vector<int> column(count, 0);
    for (std::size_t pass = 0; pass < count; ++pass) {
        bool moved = false;
        for (std::size_t i = 0; i < count; ++i)
            for (const std::string& input : spec.layers[i].inputs) {
                const int producer = layer_index(spec, input);
                if (producer < 0) continue;
                const int wanted = std::min(column[static_cast<std::size_t>(producer)] + 1, static_cast<int>(count));
                if (wanted > column[i]) {
                    column[i] = wanted;
                    moved = true;
                }
            }
        if (!moved) break;
    }
    std::map<int, std::vector<std::size_t>> columns;  // in the spec's order within a column
    for (std::size_t i = 0; i < count; ++i) columns[column[i]].push_back(i);
    for (const auto& [x, members] : columns) {
        const double top = centre_y - row_height * static_cast<double>(members.size() - 1) / 2.0;
        for (std::size_t row = 0; row < members.size(); ++row)
            spec.layers[members[row]].position =
                model::CanvasPosition{origin_x + column_width * x, top + row_height * static_cast<double>(row)};
    }
}

namespace {

bool overlaps(const model::CanvasPosition& a, const model::CanvasPosition& b) {
    // A small gap too, so that neighbours' ports and edges stay visible.
    constexpr double gap = 20.0;
    return a.x < b.x + node_width + gap && b.x < a.x + node_width + gap && a.y < b.y + node_height + gap &&
           b.y < a.y + node_height + gap;
}

bool overlaps_any(const NetworkSpec& spec, const model::CanvasPosition& at, std::string_view except) {
    for (const LayerSpec& other : spec.layers)
        if (other.name != except && other.position && overlaps(at, *other.position)) return true;
    return false;
}

bool is_read(const NetworkSpec& spec, const std::string& name) {
    return std::any_of(spec.layers.begin(), spec.layers.end(), [&](const LayerSpec& other) {
        return std::find(other.inputs.begin(), other.inputs.end(), name) != other.inputs.end();
    });
}

// The network's output: a Dense layer that feeds nothing, with one unit per class where the
// classes are known. It keeps its place at the end when layers are inserted.
bool is_output(const NetworkSpec& spec, const LayerSpec& layer, std::optional<int> classes) {
    return layer.type == LayerType::dense && (!classes || layer.units == *classes) && !is_read(spec, layer.name);
}

// Where a double-click with nothing selected inserts: at the output, else at the end of the
// last chain (the last layer that feeds nothing), else after a lone Input; -1 for no layers.
int insertion_anchor(const NetworkSpec& spec, std::optional<int> classes) {
    int output = -1, end = -1, lone_input = -1;
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        if (is_read(spec, layer.name)) continue;
        if (is_output(spec, layer, classes)) output = static_cast<int>(i);
        (layer.type == LayerType::input ? lone_input : end) = static_cast<int>(i);
    }
    return output >= 0 ? output : end >= 0 ? end : lone_input;
}

}  // namespace

Insertion insert_layer(NetworkSpec& spec, LayerSpec layer, std::string_view selected, std::optional<int> classes) {
    const bool input = layer.type == LayerType::input;
    Insertion done;
    done.name = unique_layer_name(spec, layer.name, input ? layer.name : std::string());
    layer.name = done.name;
    layer.inputs.clear();
    int anchor = -1;  // the layer the new one reads from
    if (!selected.empty()) {
        anchor = layer_index(spec, selected);
        if (anchor < 0) throw std::invalid_argument("'" + std::string(selected) + "' is not a layer of this network");
    } else {
        anchor = insertion_anchor(spec, classes);
    }
    if (!input && anchor >= 0) {
        const LayerSpec& from = spec.layers[static_cast<std::size_t>(anchor)];
        for (const LayerSpec& other : spec.layers)
            if (std::find(other.inputs.begin(), other.inputs.end(), from.name) != other.inputs.end())
                done.before.push_back(other.name);
        if (is_output(spec, from, classes) && !from.inputs.empty() && layer_index(spec, from.inputs.front()) >= 0) {
            // The output: the new layer goes on its way in.
            done.before.push_back(from.name);
            done.after = from.inputs.front();
        } else {
            done.after = from.name;
        }
        for (const std::string& reader : done.before)
            for (std::string& read : spec.layers[static_cast<std::size_t>(layer_index(spec, reader))].inputs)
                if (read == done.after) read = done.name;
        layer.inputs = {done.after};
    }

    if (!done.after.empty()) {
        const model::CanvasPosition from =
            spec.layers[static_cast<std::size_t>(layer_index(spec, done.after))].position.value_or(
                model::CanvasPosition{origin_x, centre_y});
        const model::CanvasPosition at{from.x + column_width, from.y};
        // Layers right of the one it reads from move right together (so they keep clear of each
        // other), just far enough that the first of them is a column right of the new layer.
        if (overlaps_any(spec, at, {})) {
            double first = at.x + column_width;
            for (const LayerSpec& other : spec.layers)
                if (other.position && other.position->x > from.x) first = std::min(first, other.position->x);
            const double shift = at.x + column_width - first;
            for (LayerSpec& other : spec.layers)
                if (other.position && other.position->x > from.x) {
                    other.position->x += shift;
                    done.moved.push_back(other.name);
                }
        }
        layer.position = at;
    } else {
        // Nothing to read from: the first free place down the left-hand column.
        model::CanvasPosition at{origin_x, centre_y};
        while (overlaps_any(spec, at, {})) at.y += row_height;
        layer.position = at;
    }
    spec.layers.push_back(std::move(layer));
    return done;
}

std::string layers_to_clipboard(const NetworkSpec& spec, const std::vector<std::string>& names) {
    Project clip;
    clip.network.explicit_inputs = true;
    clip.network.loss = spec.loss;
    auto chosen = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) != names.end(); };
    for (const LayerSpec& layer : spec.layers) {
        if (!chosen(layer.name)) continue;
        LayerSpec copy = layer;
        std::erase_if(copy.inputs, [&](const std::string& input) { return !chosen(input); });
        clip.network.layers.push_back(std::move(copy));
    }
    return project_to_json(clip);
}

std::vector<std::string> paste_layers(NetworkSpec& spec, std::string_view clipboard, double dx, double dy) {
    Project clip = parse_project(clipboard, "the clipboard");
    // Names first, so edges inside the pasted group follow their layers' new names.
    std::map<std::string, std::string> renamed;
    NetworkSpec taken = spec;
    for (const LayerSpec& layer : clip.network.layers) {
        std::string prefix = layer.name;
        while (!prefix.empty() && prefix.back() >= '0' && prefix.back() <= '9') prefix.pop_back();
        if (prefix.empty()) prefix = "layer";
        const std::string name = unique_layer_name(taken, prefix, layer.name);
        renamed[layer.name] = name;
        LayerSpec placeholder;
        placeholder.name = name;
        taken.layers.push_back(std::move(placeholder));
    }
    std::vector<std::string> names;
    for (LayerSpec layer : clip.network.layers) {
        layer.name = renamed[layer.name];
        for (std::string& input : layer.inputs) input = renamed[input];
        const model::CanvasPosition at = layer.position.value_or(model::CanvasPosition{});
        layer.position = model::CanvasPosition{at.x + dx, at.y + dy};
        names.push_back(layer.name);
        spec.layers.push_back(std::move(layer));
    }
    return names;
}

}  // namespace bps::project
