#pragma once
// The rules of editing a network graph, without any widget: which layer types the palette offers
// and with what defaults, which connections are allowed (and why not), unique names, the tidy
// layout and the clipboard's text. The studio's editor applies these through its undo stack;
// tests and the CLI can apply them directly. Every function works on a NetworkSpec whose inputs
// are explicit (a project file's or the editor's): a layer with no inputs is unconnected.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/network_spec.h"

namespace bps::project {

// One entry of the editor's palette: a group ("Core"), the label a learner sees ("ReLU") and the
// layer it places, with sensible defaults (Dense 128 units, Conv2D 32 3x3 filters, pool 2x2, ...).
struct PaletteEntry {
    std::string group;
    std::string label;
    std::string description;  // one sentence for the tooltip
    model::LayerSpec layer;   // name is the prefix new layers are named from ("conv", "fc")
};

// Every layer type the engine has, grouped Input, Core, Convolution, Pooling, Normalisation,
// Activation, Merge, in that order.
const std::vector<PaletteEntry>& palette();
// The palette entry with `label`, or nullptr.
const PaletteEntry* palette_entry(std::string_view label);
// The palette's group names, in order.
std::vector<std::string> palette_groups();

// `prefix` followed by the smallest number from 1 that no layer of `spec` has as a name, e.g.
// "conv3"; or `wanted` itself when it is free and not empty.
std::string unique_layer_name(const model::NetworkSpec& spec, std::string_view prefix, std::string_view wanted = {});

int layer_index(const model::NetworkSpec& spec, std::string_view name);  // -1 when there is none
bool takes_several_inputs(model::LayerType type);                        // Add, Concatenate

// Why the edge from -> to cannot be made, in a learner's words, or none when it can:
// "'input' is an Input layer and reads from no layer", "'fc1' takes one input and already reads
// from 'flatten'; delete that connection first", "connecting 'fc2' to 'conv1' would make a
// cycle: 'conv1' already feeds 'fc2'". Mismatched shapes are allowed here; the graph report
// marks them.
std::optional<std::string> connection_refusal(const model::NetworkSpec& spec, std::string_view from,
                                              std::string_view to);

// Removes the named layers and every edge into or out of them.
void remove_layers(model::NetworkSpec& spec, const std::vector<std::string>& names);

// Renames a layer and every edge that names it. Returns why not ("a layer is already named
// 'fc1'", "a layer needs a name"), or none when renamed.
std::optional<std::string> rename_layer(model::NetworkSpec& spec, std::string_view from, std::string_view to);

// Where a palette double-click puts a layer and what it rewires, so that a network grows in a
// chain: input -> Flatten -> Dense -> Dense -> output by three double-clicks.
struct Insertion {
    std::string name;                 // the new layer's (made unique)
    std::string after;                // the layer it reads from; empty when it reads nothing
    std::vector<std::string> before;  // the layers that read from it now instead of `after`
    std::vector<std::string> moved;   // layers moved right to make room for it
};
// Adds `layer` (from the palette) to `spec` after `selected` on its outgoing edges: selected ->
// layer -> every layer that `selected` fed, or selected -> layer at the end of a chain. The output
// (a Dense layer that feeds nothing, with `classes` units where they are known) stays last: when
// it is selected the new layer goes before it, on its first incoming edge. With `selected` empty
// the layer goes before the output, or at the end of the last chain, or after a lone Input. An
// Input layer reads nothing and is connected to nothing. The new layer is placed one column right
// of the layer it reads from, and the layers right of that one move right together where the new
// one would overlap them; a layer that reads nothing goes to the first free place at the left.
// Throws std::invalid_argument when `selected` is not a layer of `spec`.
Insertion insert_layer(model::NetworkSpec& spec, model::LayerSpec layer, std::string_view selected,
                       std::optional<int> classes = std::nullopt);
// The room a node takes on the canvas (the editor draws it this size), for placing without overlap.
inline constexpr double node_width = 120.0;
inline constexpr double node_height = 78.0;

// A layered left-to-right layout: each layer one column right of its deepest input, the layers
// of a column stacked and centred; layers that read nothing start at column 0. Sets every
// layer's position.
void tidy_layout(model::NetworkSpec& spec);

// The clipboard: the named layers with their parameters, positions and the edges between them
// (edges from layers left out are dropped), as project-file JSON text.
std::string layers_to_clipboard(const model::NetworkSpec& spec, const std::vector<std::string>& names);
// Adds the clipboard's layers to `spec`, renamed where their names are taken, moved by
// (dx, dy); returns the names they got. Throws ProjectError for text that is not a clipboard.
std::vector<std::string> paste_layers(model::NetworkSpec& spec, std::string_view clipboard, double dx, double dy);

}  // namespace bps::project
