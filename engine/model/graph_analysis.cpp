#include "engine/model/graph_analysis.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "engine/tensor/checked_size.h"
#include "engine/tensor/layer_geometry.h"

namespace bps::model {

namespace {
std::string quoted(const LayerSpec& layer) {
    return std::string(layer_type_name(layer.type)) + " '" + layer.name + "'";
}

std::string size_text(int h, int w) {
    return std::to_string(h) + "x" + std::to_string(w);
}

std::uint64_t values_per_sample(const Shape& shape) {
    return saturating_product({static_cast<std::uint64_t>(shape.c), static_cast<std::uint64_t>(shape.h),
                               static_cast<std::uint64_t>(shape.w)});
}

// What makes a layer too large to build, in a learner's words; "" when it fits. `parameters` is
// the layer's largest parameter tensor.
std::string size_problem(const LayerAnalysis& layer, std::uint64_t parameters) {
    const std::uint64_t values = values_per_sample(layer.output);
    const std::string most = std::to_string(max_tensor_values);
    // A saturated count (saturating_product) is not the real one: it is past 2^64.
    const auto count_text = [](std::uint64_t count) {
        return count == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 2^64")
                                                                  : std::to_string(count);
    };
    if (values > max_tensor_values)
        return "its output " + layer.output.sample_text() + " holds " + count_text(values) +
               " values per image, more than one tensor can hold (" + most + "); use smaller images" +
               (layer.spec.type == LayerType::input ? std::string() : " or fewer channels");
    if (parameters > max_tensor_values)
        return "it has " + count_text(parameters) + " weights, more than one tensor can hold (" + most +
               "); use fewer units or filters, or a smaller input";
    return {};
}

// Output shape, parameters and forward FLOPs of one layer, per sample. Returns the size of its
// largest parameter tensor (the weights), counted without wrapping.
std::uint64_t infer_layer(LayerAnalysis& layer, const std::vector<LayerAnalysis>& done) {
    const LayerSpec& spec = layer.spec;
    std::uint64_t largest = 0;
    const Shape in = done[layer.inputs.front()].output;
    const double in_count = static_cast<double>(in.per_sample());
    switch (spec.type) {
        case LayerType::input:
            break;
        case LayerType::dense:
            if (in.h != 1 || in.w != 1) throw ModelError(quoted(spec) + " needs a flat input; add a Flatten before it");
            if (spec.units < 1) throw ModelError(quoted(spec) + " needs at least one unit");
            layer.output = Shape{1, spec.units, 1, 1};
            largest = saturating_product({values_per_sample(in), static_cast<std::uint64_t>(spec.units)});
            layer.trainable_parameters = saturating_sum(largest, static_cast<std::uint64_t>(spec.units));
            layer.flops = (2 * in_count + 1) * spec.units;
            break;
        case LayerType::conv2d: {
            if (spec.units < 1) throw ModelError(quoted(spec) + " needs at least one filter");
            const Conv2dGeometry& g = spec.conv;
            if (g.padding == Padding::valid && g.kernel_h >= 1 && g.kernel_w >= 1 &&
                (g.kernel_h > in.h || g.kernel_w > in.w))
                throw ModelError(quoted(spec) + ": kernel " + size_text(g.kernel_h, g.kernel_w) +
                                 " is larger than its " + size_text(in.h, in.w) +
                                 " input; use a smaller kernel or 'same' padding");
            layer.output = conv2d_output_shape(in, spec.units, g);
            const std::uint64_t taps =
                saturating_product({static_cast<std::uint64_t>(in.c), static_cast<std::uint64_t>(g.kernel_h),
                                    static_cast<std::uint64_t>(g.kernel_w)});
            largest = saturating_product({taps, static_cast<std::uint64_t>(spec.units)});
            layer.trainable_parameters = saturating_sum(largest, static_cast<std::uint64_t>(spec.units));
            layer.flops = (2.0 * static_cast<double>(taps) + 1) * static_cast<double>(layer.output.per_sample());
            break;
        }
        case LayerType::max_pool:
        case LayerType::avg_pool: {
            const PoolGeometry& g = spec.pool;
            if (g.size_h >= 1 && g.size_w >= 1 && (g.size_h > in.h || g.size_w > in.w))
                throw ModelError(quoted(spec) + ": pool " + size_text(g.size_h, g.size_w) + " is larger than its " +
                                 size_text(in.h, in.w) + " input");
            layer.output = pool_output_shape(in, g);
            layer.flops = static_cast<double>(g.size_h) * g.size_w * static_cast<double>(layer.output.per_sample());
            break;
        }
        case LayerType::global_avg_pool:
            layer.output = Shape{1, in.c, 1, 1};
            layer.flops = in_count;
            break;
        case LayerType::flatten:
            layer.output = Shape{1, static_cast<int>(in.per_sample()), 1, 1};
            break;
        case LayerType::dropout:
            if (!(spec.rate >= 0.0f && spec.rate < 1.0f))
                throw ModelError(quoted(spec) + " needs a rate from 0 up to (not including) 1");
            layer.output = in;
            layer.flops = in_count;
            break;
        case LayerType::activation:
            layer.output = in;
            layer.flops = in_count;
            break;
        case LayerType::batch_norm:
            layer.output = in;
            layer.trainable_parameters = 2 * static_cast<std::size_t>(in.c);
            layer.parameters = 2 * static_cast<std::size_t>(in.c);  // running mean and variance
            layer.flops = 2 * in_count;
            break;
        case LayerType::add:
            for (int producer : layer.inputs)
                if (done[producer].output != in)
                    throw ModelError(quoted(spec) + " needs inputs of the same shape: '" +
                                     done[layer.inputs.front()].spec.name + "' gives " + in.sample_text() + ", '" +
                                     done[producer].spec.name + "' gives " + done[producer].output.sample_text());
            layer.output = in;
            layer.flops = static_cast<double>(layer.inputs.size() - 1) * in_count;
            break;
        case LayerType::concat: {
            std::uint64_t channels = 0;
            for (int producer : layer.inputs) {
                const Shape& part = done[producer].output;
                if (part.h != in.h || part.w != in.w)
                    throw ModelError(quoted(spec) + " needs inputs of the same height and width: '" +
                                     done[layer.inputs.front()].spec.name + "' gives " + in.sample_text() + ", '" +
                                     done[producer].spec.name + "' gives " + part.sample_text());
                channels += static_cast<std::uint64_t>(part.c);
            }
            if (channels > max_tensor_values)
                throw ModelError(quoted(spec) + " joins " + std::to_string(channels) +
                                 " channels, more than one tensor can hold (" + std::to_string(max_tensor_values) +
                                 ")");
            layer.output = in;
            layer.output.c = static_cast<int>(channels);
            break;
        }
    }
    layer.parameters += layer.trainable_parameters;
    return largest;
}
}  // namespace

std::size_t GraphAnalysis::parameters() const {
    std::size_t total = 0;
    for (const LayerAnalysis& layer : layers) total += layer.parameters;
    return total;
}

std::size_t GraphAnalysis::trainable_parameters() const {
    std::size_t total = 0;
    for (const LayerAnalysis& layer : layers) total += layer.trainable_parameters;
    return total;
}

double GraphAnalysis::flops() const {
    double total = 0;
    for (const LayerAnalysis& layer : layers) total += layer.flops;
    return total;
}

std::size_t GraphAnalysis::activation_bytes() const {
    std::size_t total = 0;
    for (const LayerAnalysis& layer : layers) total += layer.activation_bytes;
    return total;
}

std::string NodeReport::shape_text() const {
    if (output) return output->sample_text();
    return input_has_problem ? "unknown because its input has a problem" : "unknown";
}

GraphReport analyse_graph_report(const NetworkSpec& spec, std::optional<int> classes) {
    // The checks run in the order the throwing analysis has always met them (the network's input,
    // names, each node's connections, the Input layer count, cycles, loose nodes, shapes in
    // execution order, the output), so report.problems.front() is the message analyse_graph gives.
    const std::vector<LayerSpec>& layers = spec.layers;
    const int count = static_cast<int>(layers.size());
    GraphReport report;
    report.nodes.resize(layers.size());
    auto problem = [&](std::optional<int> node, const std::string& message) {
        if (node)
            report.nodes[*node].problems.push_back(message);
        else
            report.network_problems.push_back(message);
        report.problems.push_back({node, message});
    };

    Shape input = spec.input;
    input.n = 1;
    bool input_known = true;
    try {
        require_valid(input, "the network's input");
    } catch (const std::invalid_argument& error) {
        problem(std::nullopt, error.what());
        input_known = false;
    }
    if (layers.empty()) {
        problem(std::nullopt, "the network has no layers");
        return report;
    }

    std::map<std::string, int> index_of;  // the first node of each name
    std::vector<bool> duplicate(layers.size(), false);
    for (int i = 0; i < count; ++i) {
        if (layers[i].name.empty()) {
            problem(i, "layer " + std::to_string(i + 1) + " has no name");
            continue;
        }
        const auto [first, added] = index_of.emplace(layers[i].name, i);
        if (added) continue;
        const std::string message = "two layers are named '" + layers[i].name + "'; names must be unique";
        if (!duplicate[first->second]) problem(first->second, message);
        duplicate[first->second] = duplicate[i] = true;
        problem(i, message);
    }

    // Connections: a node whose inputs cannot be told gets no shape.
    std::vector<bool> blocked(layers.size(), false);
    std::vector<int> consumers(layers.size(), 0);
    std::vector<bool> unconnected(layers.size(), false);  // reads nothing in a graph of explicit inputs
    int input_layers = 0;
    for (int i = 0; i < count; ++i) {
        const LayerSpec& layer = layers[i];
        std::vector<int>& inputs = report.nodes[i].inputs;
        if (layer.type == LayerType::input) {
            if (++input_layers > 1) blocked[i] = true;
            if (!layer.inputs.empty()) problem(i, quoted(layer) + " cannot have inputs");
            continue;
        }
        std::size_t listed = layer.inputs.size();
        if (layer.inputs.empty()) {
            if (spec.explicit_inputs) {
                problem(i, quoted(layer) + " has no input; connect the layer it should read to it");
                blocked[i] = true;
                unconnected[i] = true;  // that says it all: not "not connected to the output" too
                continue;
            }
            if (i == 0) {
                problem(i, quoted(layer) + " has no input; the network must start with an Input layer");
                blocked[i] = true;
                continue;
            }
            inputs.push_back(i - 1);
            listed = 1;
        }
        for (const std::string& name : layer.inputs) {
            const auto found = index_of.find(name);
            if (found != index_of.end()) {
                inputs.push_back(found->second);
                continue;
            }
            problem(i, quoted(layer) + " reads from '" + name + "', which is not a layer of this network");
            blocked[i] = true;
        }
        for (int producer : inputs) ++consumers[producer];
        const bool merge = layer.type == LayerType::add || layer.type == LayerType::concat;
        if (merge && listed < 2) {
            problem(i, quoted(layer) + " needs at least two inputs");
            blocked[i] = true;
        }
        if (!merge && listed != 1) {
            problem(i, quoted(layer) + " takes exactly one input, not " + std::to_string(listed));
            blocked[i] = true;
        }
    }
    if (input_layers == 0) problem(std::nullopt, "the network has no Input layer");
    for (int i = 0, seen = 0; i < count && input_layers > 1; ++i)
        if (layers[i].type == LayerType::input && seen++ > 0) problem(i, "the network has more than one Input layer");

    // Execution order (Kahn's algorithm); the nodes it cannot reach are on a cycle or after one.
    std::vector<int> waiting(layers.size());
    std::vector<std::vector<int>> readers(layers.size());
    for (int i = 0; i < count; ++i) {
        waiting[i] = static_cast<int>(report.nodes[i].inputs.size());
        for (int producer : report.nodes[i].inputs) readers[producer].push_back(i);
    }
    std::vector<int> ready;
    for (int i = count - 1; i >= 0; --i)
        if (waiting[i] == 0) ready.push_back(i);
    std::vector<int>& order = report.execution_order;
    while (!ready.empty()) {
        const int next = ready.back();
        ready.pop_back();
        order.push_back(next);
        for (auto reader = readers[next].rbegin(); reader != readers[next].rend(); ++reader)
            if (--waiting[*reader] == 0) ready.push_back(*reader);
    }
    if (order.size() != layers.size()) {
        // Walk from a layer that never became ready through its unready inputs: the walk must
        // come back to a layer it has seen, and that layer lies on the cycle. It is named first.
        int at = 0;
        while (waiting[at] == 0) ++at;
        std::vector<bool> seen(layers.size(), false);
        while (!seen[at]) {
            seen[at] = true;
            const std::vector<int>& inputs = report.nodes[at].inputs;
            at = *std::find_if(inputs.begin(), inputs.end(), [&](int p) { return waiting[p] > 0; });
        }
        // Every other unready node that can reach itself through unready readers is on a cycle.
        auto on_cycle = [&](int start) {
            std::vector<bool> visited(layers.size(), false);
            std::vector<int> stack = {start};
            while (!stack.empty()) {
                const int node = stack.back();
                stack.pop_back();
                for (int reader : readers[node]) {
                    if (reader == start) return true;
                    if (waiting[reader] > 0 && !visited[reader]) {
                        visited[reader] = true;
                        stack.push_back(reader);
                    }
                }
            }
            return false;
        };
        problem(at, "the graph has a cycle through '" + layers[at].name + "'");
        blocked[at] = true;
        for (int i = 0; i < count; ++i)
            if (i != at && waiting[i] > 0 && on_cycle(i)) {
                problem(i, "the graph has a cycle through '" + layers[i].name + "'");
                blocked[i] = true;
            }
    }

    // The output is the last node no other reads, preferring one the Input feeds: a layer just
    // dropped on the editor's canvas, reading nothing yet, does not take the output's place.
    // Every other such node leads nowhere.
    std::vector<bool> fed(layers.size(), false);
    for (int at : order) {
        const std::vector<int>& inputs = report.nodes[at].inputs;
        fed[at] = layers[at].type == LayerType::input ||
                  (!inputs.empty() && std::all_of(inputs.begin(), inputs.end(), [&](int p) { return fed[p]; }));
    }
    std::vector<int> ends;
    for (int i = 0; i < count; ++i)
        if (consumers[i] == 0) ends.push_back(i);
    for (auto end = ends.rbegin(); end != ends.rend() && !report.output; ++end)
        if (fed[*end]) report.output = *end;
    if (!report.output && !ends.empty()) report.output = ends.back();
    for (int end : ends)
        if (end != *report.output && !unconnected[end])
            problem(end, quoted(layers[end]) + " is not connected to the output; connect it or remove it");

    // Shapes, in execution order; `done` is by node index, as are its `inputs`.
    std::vector<LayerAnalysis> done(layers.size());
    for (int i = 0; i < count; ++i) report.nodes[i].input_has_problem = waiting[i] > 0 && !blocked[i];
    for (int original : order) {
        NodeReport& node = report.nodes[original];
        if (blocked[original]) continue;
        LayerAnalysis& layer = done[original];
        std::uint64_t largest_parameter = 0;
        layer.spec = layers[original];
        layer.inputs = node.inputs;
        if (layer.spec.type == LayerType::input) {
            node.input_has_problem = !input_known;
            if (!input_known) continue;
            layer.output = input;
        } else {
            node.input_has_problem =
                std::any_of(node.inputs.begin(), node.inputs.end(), [&](int p) { return !report.nodes[p].output; });
            if (node.input_has_problem) continue;
            try {
                largest_parameter = infer_layer(layer, done);
            } catch (const ModelError& error) {
                problem(original, error.what());
                continue;
            } catch (const std::invalid_argument& error) {
                problem(original, quoted(layer.spec) + ": " + error.what());
                continue;
            }
        }
        if (const std::string too_large = size_problem(layer, largest_parameter); !too_large.empty()) {
            problem(original, quoted(layer.spec) + ": " + too_large);
            continue;
        }
        if (layer.spec.type != LayerType::flatten) layer.activation_bytes = layer.output.per_sample() * sizeof(float);
        node.output = layer.output;
        node.parameters = layer.parameters;
        node.trainable_parameters = layer.trainable_parameters;
        node.flops = layer.flops;
        node.activation_bytes = layer.activation_bytes;
    }

    // A classifier ends in flat scores, one per class.
    if (!report.output || spec.loss != LossKind::softmax_cross_entropy) return report;
    const int out = *report.output;
    const NodeReport& last = report.nodes[out];
    if (!last.output) return report;
    if (last.output->h != 1 || last.output->w != 1) {
        problem(out, "the output " + quoted(layers[out]) + " gives " + last.output->sample_text() +
                         "; a classifier must end in flat class scores (add Flatten and a Dense layer)");
    } else if (last.output->c < 2) {
        problem(out, "the output " + quoted(layers[out]) + " has " + std::to_string(last.output->c) +
                         " unit; a classifier needs one unit per class (at least 2)");
    } else if (classes && last.output->c != *classes) {
        problem(out, "the output '" + layers[out].name + "' has " + std::to_string(last.output->c) +
                         " units but the dataset has " + std::to_string(*classes) + " classes");
    }
    return report;
}

GraphAnalysis checked_analysis(const NetworkSpec& spec, const GraphReport& report) {
    if (!report.ok()) throw ModelError(report.problems.front().message);
    std::vector<int> position(spec.layers.size());
    for (int i = 0; i < static_cast<int>(report.execution_order.size()); ++i) position[report.execution_order[i]] = i;
    GraphAnalysis analysis;
    for (int original : report.execution_order) {
        const NodeReport& node = report.nodes[original];
        LayerAnalysis layer;
        layer.spec = spec.layers[original];
        for (int producer : node.inputs) layer.inputs.push_back(position[producer]);
        layer.output = *node.output;
        layer.parameters = node.parameters;
        layer.trainable_parameters = node.trainable_parameters;
        layer.flops = node.flops;
        layer.activation_bytes = node.activation_bytes;
        analysis.layers.push_back(std::move(layer));
    }
    return analysis;
}

GraphAnalysis analyse_graph(const NetworkSpec& spec) {
    return checked_analysis(spec, analyse_graph_report(spec));
}

}  // namespace bps::model
