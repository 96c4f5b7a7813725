#include "engine/model/graph_analysis.h"

#include <algorithm>
#include <map>

#include "engine/ops/conv2d.h"
#include "engine/ops/pool.h"

namespace bps::model {

namespace {
std::string quoted(const LayerSpec& layer) {
    return std::string(layer_type_name(layer.type)) + " '" + layer.name + "'";
}

std::string size_text(int h, int w) {
    return std::to_string(h) + "x" + std::to_string(w);
}

struct OrderedGraph {
    std::vector<int> order;                // original indices in execution order
    std::vector<std::vector<int>> inputs;  // by original index
};

// Orders the layers so that every layer comes after its inputs (Kahn's algorithm), and checks
// that the graph has one input, one output and no cycle.
OrderedGraph order_layers(const std::vector<LayerSpec>& layers) {
    if (layers.empty()) throw ModelError("the network has no layers");
    std::map<std::string, int> index_of;
    for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
        if (layers[i].name.empty()) throw ModelError("layer " + std::to_string(i + 1) + " has no name");
        if (!index_of.emplace(layers[i].name, i).second)
            throw ModelError("two layers are named '" + layers[i].name + "'; names must be unique");
    }
    OrderedGraph graph;
    std::vector<std::vector<int>>& inputs = graph.inputs;
    inputs.resize(layers.size());
    std::vector<int> consumers(layers.size(), 0);
    int input_count = 0;
    for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
        const LayerSpec& layer = layers[i];
        if (layer.type == LayerType::input) {
            ++input_count;
            if (!layer.inputs.empty()) throw ModelError(quoted(layer) + " cannot have inputs");
            continue;
        }
        if (layer.inputs.empty()) {
            if (i == 0) throw ModelError(quoted(layer) + " has no input; the network must start with an Input layer");
            inputs[i].push_back(i - 1);
        }
        for (const std::string& name : layer.inputs) {
            const auto found = index_of.find(name);
            if (found == index_of.end())
                throw ModelError(quoted(layer) + " reads from '" + name + "', which is not a layer of this network");
            inputs[i].push_back(found->second);
        }
        for (int producer : inputs[i]) ++consumers[producer];
        const bool merge = layer.type == LayerType::add || layer.type == LayerType::concat;
        if (merge && inputs[i].size() < 2) throw ModelError(quoted(layer) + " needs at least two inputs");
        if (!merge && inputs[i].size() != 1)
            throw ModelError(quoted(layer) + " takes exactly one input, not " + std::to_string(inputs[i].size()));
    }
    if (input_count != 1)
        throw ModelError(input_count == 0 ? "the network has no Input layer"
                                          : "the network has more than one Input layer");

    std::vector<int> waiting(layers.size());
    std::vector<std::vector<int>> readers(layers.size());
    for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
        waiting[i] = static_cast<int>(inputs[i].size());
        for (int producer : inputs[i]) readers[producer].push_back(i);
    }
    std::vector<int> ready;
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i)
        if (waiting[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
        const int next = ready.back();
        ready.pop_back();
        graph.order.push_back(next);
        for (auto reader = readers[next].rbegin(); reader != readers[next].rend(); ++reader)
            if (--waiting[*reader] == 0) ready.push_back(*reader);
    }
    if (graph.order.size() != layers.size()) {
        // Walk from a layer that never became ready through its unready inputs: the walk must
        // come back to a layer it has seen, and that layer lies on the cycle.
        int at = 0;
        while (waiting[at] == 0) ++at;
        std::vector<bool> seen(layers.size(), false);
        while (!seen[at]) {
            seen[at] = true;
            at = *std::find_if(inputs[at].begin(), inputs[at].end(), [&](int p) { return waiting[p] > 0; });
        }
        throw ModelError("the graph has a cycle through '" + layers[at].name + "'");
    }
    // Checked after the cycle: a cycle also leaves layers without consumers.
    std::vector<int> outputs;
    for (int i = 0; i < static_cast<int>(layers.size()); ++i)
        if (consumers[i] == 0) outputs.push_back(i);
    if (outputs.size() > 1) {
        const int loose = outputs.front() == static_cast<int>(layers.size()) - 1 ? outputs[1] : outputs.front();
        throw ModelError(quoted(layers[loose]) + " is not connected to the output; connect it or remove it");
    }
    return graph;
}

// Output shape, parameters and forward FLOPs of one layer, per sample.
void infer_layer(LayerAnalysis& layer, const std::vector<LayerAnalysis>& done) {
    const LayerSpec& spec = layer.spec;
    const Shape in = done[layer.inputs.front()].output;
    const double in_count = static_cast<double>(in.per_sample());
    switch (spec.type) {
        case LayerType::input:
            break;
        case LayerType::dense:
            if (in.h != 1 || in.w != 1) throw ModelError(quoted(spec) + " needs a flat input; add a Flatten before it");
            if (spec.units < 1) throw ModelError(quoted(spec) + " needs at least one unit");
            layer.output = Shape{1, spec.units, 1, 1};
            layer.trainable_parameters = (in.per_sample() + 1) * static_cast<std::size_t>(spec.units);
            layer.flops = (2 * in_count + 1) * spec.units;
            break;
        case LayerType::conv2d: {
            if (spec.units < 1) throw ModelError(quoted(spec) + " needs at least one filter");
            const ops::Conv2dGeometry& g = spec.conv;
            if (g.padding == ops::Padding::valid && g.kernel_h >= 1 && g.kernel_w >= 1 &&
                (g.kernel_h > in.h || g.kernel_w > in.w))
                throw ModelError(quoted(spec) + ": kernel " + size_text(g.kernel_h, g.kernel_w) +
                                 " is larger than its " + size_text(in.h, in.w) +
                                 " input; use a smaller kernel or 'same' padding");
            layer.output = ops::conv2d_output_shape(in, spec.units, g);
            const std::size_t taps = static_cast<std::size_t>(in.c) * g.kernel_h * g.kernel_w;
            layer.trainable_parameters = (taps + 1) * static_cast<std::size_t>(spec.units);
            layer.flops = (2.0 * static_cast<double>(taps) + 1) * static_cast<double>(layer.output.per_sample());
            break;
        }
        case LayerType::max_pool:
        case LayerType::avg_pool: {
            const ops::PoolGeometry& g = spec.pool;
            if (g.size_h >= 1 && g.size_w >= 1 && (g.size_h > in.h || g.size_w > in.w))
                throw ModelError(quoted(spec) + ": pool " + size_text(g.size_h, g.size_w) + " is larger than its " +
                                 size_text(in.h, in.w) + " input");
            layer.output = ops::pool_output_shape(in, g);
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
        case LayerType::concat:
            layer.output = in;
            layer.output.c = 0;
            for (int producer : layer.inputs) {
                const Shape& part = done[producer].output;
                if (part.h != in.h || part.w != in.w)
                    throw ModelError(quoted(spec) + " needs inputs of the same height and width: '" +
                                     done[layer.inputs.front()].spec.name + "' gives " + in.sample_text() + ", '" +
                                     done[producer].spec.name + "' gives " + part.sample_text());
                layer.output.c += part.c;
            }
            break;
    }
    layer.parameters += layer.trainable_parameters;
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

GraphAnalysis analyse_graph(const NetworkSpec& spec) {
    Shape input = spec.input;
    input.n = 1;
    require_valid(input, "the network's input");
    const OrderedGraph graph = order_layers(spec.layers);
    std::vector<int> position(spec.layers.size());
    for (int i = 0; i < static_cast<int>(graph.order.size()); ++i) position[graph.order[i]] = i;

    GraphAnalysis analysis;
    for (int original : graph.order) {
        LayerAnalysis layer;
        layer.spec = spec.layers[original];
        for (int producer : graph.inputs[original]) layer.inputs.push_back(position[producer]);
        if (layer.spec.type == LayerType::input) {
            layer.output = input;
        } else {
            try {
                infer_layer(layer, analysis.layers);
            } catch (const ModelError&) {
                throw;
            } catch (const std::invalid_argument& error) {
                throw ModelError(quoted(layer.spec) + ": " + error.what());
            }
        }
        if (layer.spec.type != LayerType::flatten) layer.activation_bytes = layer.output.per_sample() * sizeof(float);
        analysis.layers.push_back(std::move(layer));
    }

    const LayerAnalysis& last = analysis.layers.back();
    if (spec.loss == LossKind::softmax_cross_entropy && (last.output.h != 1 || last.output.w != 1))
        throw ModelError("the output " + quoted(last.spec) + " gives " + last.output.sample_text() +
                         "; a classifier must end in flat class scores (add Flatten and a Dense layer)");
    if (spec.loss == LossKind::softmax_cross_entropy && last.output.c < 2)
        throw ModelError("the output " + quoted(last.spec) + " has " + std::to_string(last.output.c) +
                         " unit; a classifier needs one unit per class (at least 2)");
    return analysis;
}

void check_output_classes(const GraphAnalysis& analysis, int classes) {
    const LayerAnalysis& last = analysis.layers.back();
    const std::size_t units = last.output.per_sample();
    if (units != static_cast<std::size_t>(classes))
        throw ModelError("the output '" + last.spec.name + "' has " + std::to_string(units) +
                         " units but the dataset has " + std::to_string(classes) + " classes");
}

}  // namespace bps::model
