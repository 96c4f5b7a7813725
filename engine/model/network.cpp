#include "engine/model/network.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "engine/ops/activation.h"
#include "engine/ops/batch_norm.h"
#include "engine/ops/conv2d.h"
#include "engine/ops/dense.h"
#include "engine/ops/dropout.h"
#include "engine/ops/finite.h"
#include "engine/ops/loss.h"
#include "engine/ops/merge.h"
#include "engine/ops/metrics.h"
#include "engine/ops/pool.h"
#include "engine/train/initializer.h"
#include "engine/train/random.h"

namespace bps::model {

using ops::GradWrite;

struct Network::Parameter {
    std::string name;
    Shape shape;
    std::vector<int> dims;  // as saved (ParameterView::dims)
    bool trainable = false;
    TensorId value = 0;
    std::optional<TensorId> gradient;  // none for running statistics
    std::vector<TensorId> state;       // optimiser state
    std::vector<Tensor> state_views;   // the same, resolved once the arena exists
    train::Initializer initializer = train::Initializer::zeros;
    train::Fans fans{1, 1};
};

struct Network::Node {
    LayerSpec spec;
    std::vector<int> inputs;  // node indices, earlier in execution order
    Shape output;             // with n = batch size
    int storage = 0;          // the node whose memory holds this output: Flatten shares its input's, a layer with
                              // a fused activation the Activation's
    TensorId y = 0, dy = 0;
    std::vector<GradWrite> input_writes;  // how backward writes each input's gradient
    // An Activation layer fused into the Dense or Conv2D layer before it (fuse_activations): the
    // producer applies it in its own kernels and shares the Activation's memory (its output
    // before the activation is never stored), and the Activation itself runs nothing.
    std::optional<ops::FusedActivation> fused_activation;  // on the producer
    bool fused_into_producer = false;                      // on the Activation
    // Whether the loss's gradient with respect to this output is wanted: some trainable
    // parameter lies here or before. Backward computes no gradient nobody reads (the input's,
    // and a Flatten or pooling of the input).
    bool gradient_needed = false;
    // Indices into parameters_ and scratch tensors, by layer type.
    std::vector<std::size_t> parameters;
    TensorId scratch = 0;  // MaxPool argmax, Dropout mask
    // Conv2D's column matrix, kept from the forward for the backward where the gemm method runs
    // the whole batch in one slice (ops::ConvPlan::kept_columns).
    std::optional<TensorId> columns;
    TensorId saved_mean = 0, saved_inv_std = 0;
};

namespace {
Shape per_sample(Shape shape) {
    shape.n = 1;
    return shape;
}

}  // namespace

Network::Network(ops::Runtime& runtime, const NetworkSpec& spec, int batch_size,
                 const train::OptimizerSettings& optimizer, std::uint64_t seed, NetworkOptions options)
    : runtime_(runtime),
      batch_size_(batch_size),
      options_(options),
      input_sample_(per_sample(spec.input)),
      loss_kind_(spec.loss),
      optimizer_(optimizer) {
    if (batch_size < 1) throw ModelError("the batch size must be at least 1, not " + std::to_string(batch_size));
    require_valid(input_sample_, "the network's input");
    build_graph(spec);
    plan_memory();
    arena_ = std::make_unique<TensorArena>(runtime_.context(), runtime_.queue(), plan_);
    for (Parameter& parameter : parameters_)
        for (TensorId id : parameter.state) parameter.state_views.push_back((*arena_)[id]);
    parameter_blocks_ = parameter_blocks();
    initialise_parameters(seed);
}

Network::~Network() = default;

void Network::build_graph(const NetworkSpec& spec) {
    GraphAnalysis analysis = analyse_graph(spec);
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        LayerAnalysis& layer = analysis.layers[i];
        auto node = std::make_unique<Node>();
        node->spec = std::move(layer.spec);
        node->inputs = std::move(layer.inputs);
        node->output = layer.output;
        node->output.n = batch_size_;
        // Flatten is a view: its output lives in its input's memory.
        node->storage =
            node->spec.type == LayerType::flatten ? nodes_[node->inputs.front()]->storage : static_cast<int>(i);
        nodes_.push_back(std::move(node));
    }
    if (!options_.every_output) fuse_activations();
}

void Network::fuse_activations() {
    std::vector<int> readers(nodes_.size(), 0);
    for (const std::unique_ptr<Node>& node : nodes_)
        for (int producer : node->inputs) ++readers[static_cast<std::size_t>(producer)];
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        Node& node = *nodes_[i];
        if (node.spec.type != LayerType::activation || node.inputs.size() != 1) continue;
        const int producer_index = node.inputs.front();
        Node& producer = *nodes_[static_cast<std::size_t>(producer_index)];
        const bool weighted = producer.spec.type == LayerType::dense || producer.spec.type == LayerType::conv2d;
        // The output before the activation must be read by the activation alone: it is not stored.
        if (!weighted || readers[static_cast<std::size_t>(producer_index)] != 1 ||
            !ops::derivative_from_output(node.spec.activation, node.spec.slope))
            continue;
        producer.fused_activation = ops::FusedActivation{node.spec.activation, node.spec.slope};
        producer.storage = static_cast<int>(i);
        node.fused_into_producer = true;
    }
}

void Network::plan_memory() {
    auto add = [&](const std::string& name, const Shape& shape, bool batched) {
        const TensorId id = plan_.add(name, shape);
        per_batch_.push_back(batched);
        return id;
    };
    // Parameters are declared here and placed after the layers (see below).
    auto add_parameter = [&](Node& node, const std::string& suffix, const Shape& shape, std::vector<int> dims,
                             train::Initializer init, train::Fans fans, bool trainable) {
        Parameter parameter;
        parameter.name = node.spec.name + "." + suffix;
        parameter.shape = shape;
        parameter.dims = std::move(dims);
        parameter.trainable = trainable;
        parameter.initializer = init;
        parameter.fans = fans;
        node.parameters.push_back(parameters_.size());
        parameters_.push_back(std::move(parameter));
    };

    std::size_t workspace = 0;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        Node& node = *nodes_[i];
        const LayerSpec& layer = node.spec;
        if (node.storage == static_cast<int>(i)) {
            node.y = add(layer.name + ".output", node.output, true);
            node.dy = add(layer.name + ".gradient", node.output, true);
        }
        const Shape in = node.inputs.empty() ? Shape{} : nodes_[node.inputs.front()]->output;
        const Shape channels{1, node.output.c, 1, 1};
        const std::vector<int> per_channel{node.output.c};
        switch (layer.type) {
            case LayerType::dense: {
                const Shape weight{layer.units, static_cast<int>(in.per_sample()), 1, 1};
                add_parameter(node, "weight", weight, {weight.n, weight.c}, layer.initializer,
                              train::dense_fans(weight), true);
                add_parameter(node, "bias", channels, per_channel, train::Initializer::zeros, {1, 1}, true);
                break;
            }
            case LayerType::conv2d: {
                const Shape weight{layer.units, in.c, layer.conv.kernel_h, layer.conv.kernel_w};
                add_parameter(node, "weight", weight, {weight.n, weight.c, weight.h, weight.w}, layer.initializer,
                              train::conv_fans(weight), true);
                add_parameter(node, "bias", channels, per_channel, train::Initializer::zeros, {1, 1}, true);
                try {
                    // Kept columns live in their own tensor, so the shared workspace leaves them out.
                    const std::size_t columns =
                        ops::conv2d_kept_columns_elements(runtime_, in, layer.units, layer.conv);
                    if (columns > 0)
                        node.columns = add(layer.name + ".columns", Shape{1, static_cast<int>(columns), 1, 1}, false);
                    workspace = std::max(workspace,
                                         ops::conv2d_workspace_elements(
                                             runtime_, in, layer.units, layer.conv, {},
                                             columns > 0 ? ops::ColumnMatrix::kept : ops::ColumnMatrix::in_workspace));
                } catch (const std::invalid_argument& error) {
                    throw ModelError(std::string("Conv2D '") + layer.name + "': " + error.what() +
                                     "; use fewer filters, a smaller batch or smaller images");
                }
                break;
            }
            case LayerType::batch_norm:
                add_parameter(node, "gamma", channels, per_channel, train::Initializer::ones, {1, 1}, true);
                add_parameter(node, "beta", channels, per_channel, train::Initializer::zeros, {1, 1}, true);
                add_parameter(node, "running_mean", channels, per_channel, train::Initializer::zeros, {1, 1}, false);
                add_parameter(node, "running_var", channels, per_channel, train::Initializer::ones, {1, 1}, false);
                node.saved_mean = add(layer.name + ".saved_mean", channels, false);
                node.saved_inv_std = add(layer.name + ".saved_inv_std", channels, false);
                break;
            case LayerType::max_pool:
                node.scratch = add(layer.name + ".argmax", node.output, true);
                break;
            case LayerType::dropout:
                node.scratch = add(layer.name + ".mask", node.output, true);
                break;
            default:
                break;
        }
    }
    place_parameters();
    // Conv layers share one scratch area: they run one at a time on an in-order queue.
    if (workspace > 0) {
        workspace_ = add("conv2d.workspace", Shape{1, static_cast<int>(workspace), 1, 1}, false);
        has_workspace_ = true;
    }
    const Shape out = nodes_.back()->output;
    const Shape column{batch_size_, 1, 1, 1};
    labels_ = add("labels", column, true);
    targets_ = add("targets", out, true);
    sample_loss_ = add("sample_loss", column, true);
    sample_correct_ = add("sample_correct", column, true);
    probabilities_ = add("probabilities", out, true);
    totals_ = add("metric_totals", Shape{1, 2, 1, 1}, false);
    // One int32 counter per parameter and optimiser state (non_finite_values).
    std::size_t arrays = parameters_.size();
    for (const Parameter& parameter : parameters_) arrays += parameter.state.size();
    non_finite_counts_ =
        add("non_finite_counts", Shape{1, static_cast<int>(std::max<std::size_t>(arrays, 1)), 1, 1}, false);

    // Which outputs need a gradient, in execution order: a trainable parameter here or upstream.
    for (std::unique_ptr<Node>& node : nodes_) {
        // The input's own gradient is wanted only when looking at what the output depends on.
        node->gradient_needed = options_.input_gradient && node->spec.type == LayerType::input;
        for (std::size_t p : node->parameters) node->gradient_needed |= parameters_[p].gradient.has_value();
        for (int producer : node->inputs) node->gradient_needed |= nodes_[producer]->gradient_needed;
    }
    // How each backward writes its input gradients: the first write into a tensor's memory
    // (in backward order) overwrites it, later ones add to it. Flatten writes nothing itself;
    // its readers write straight into its input's memory.
    std::vector<bool> written(nodes_.size(), false);
    for (std::size_t i = nodes_.size(); i-- > 0;) {
        Node& node = *nodes_[i];
        node.input_writes.clear();
        for (int producer : node.inputs) {
            const int storage = nodes_[producer]->storage;
            node.input_writes.push_back(written[storage] ? GradWrite::accumulate : GradWrite::overwrite);
            if (node.spec.type != LayerType::flatten) written[storage] = true;
        }
    }
}

void Network::place_parameters() {
    auto add = [&](const std::string& name, const Shape& shape) {
        per_batch_.push_back(false);
        return plan_.add(name, shape);
    };
    // Every trainable value, then every gradient, then each optimiser state, in the same order:
    // the arena places tensors one after the other, each on the same 64-byte boundary, so the
    // blocks line up element for element and one optimiser command updates them all (update).
    // The padding between tensors is zero in every block and stays zero under any optimiser.
    std::vector<Parameter*> trainable;
    for (Parameter& parameter : parameters_)
        if (parameter.trainable) trainable.push_back(&parameter);
    for (Parameter* parameter : trainable) parameter->value = add(parameter->name, parameter->shape);
    for (Parameter* parameter : trainable) parameter->gradient = add(parameter->name + ".grad", parameter->shape);
    for (int s = 0; s < train::optimizer_state_count(optimizer_); ++s)
        for (Parameter* parameter : trainable)
            parameter->state.push_back(add(parameter->name + ".state" + std::to_string(s), parameter->shape));
    for (Parameter& parameter : parameters_)
        if (!parameter.trainable) parameter.value = add(parameter.name, parameter.shape);
}

std::optional<Network::ParameterBlocks> Network::parameter_blocks() const {
    std::vector<const Parameter*> trainable;
    for (const Parameter& parameter : parameters_)
        if (parameter.gradient) trainable.push_back(&parameter);
    if (trainable.empty()) return std::nullopt;
    const Parameter& first = *trainable.front();
    const Parameter& last = *trainable.back();
    const std::size_t begin = plan_.offset(first.value);
    const std::size_t count = plan_.offset(last.value) + plan_.shape(last.value).count() - begin;
    // The blocks must line up element for element (place_parameters); checked rather than assumed.
    auto lines_up = [&](auto&& id_of) {
        const std::ptrdiff_t shift = std::ptrdiff_t(plan_.offset(id_of(first))) - std::ptrdiff_t(begin);
        return std::all_of(trainable.begin(), trainable.end(), [&](const Parameter* parameter) {
            return std::ptrdiff_t(plan_.offset(id_of(*parameter))) - std::ptrdiff_t(plan_.offset(parameter->value)) ==
                   shift;
        });
    };
    bool aligned = lines_up([](const Parameter& p) { return *p.gradient; });
    for (std::size_t s = 0; s < first.state.size(); ++s)
        aligned &= lines_up([s](const Parameter& p) { return p.state[s]; });
    if (!aligned || count > std::size_t(INT_MAX)) return std::nullopt;
    const Shape shape{1, static_cast<int>(count), 1, 1};
    auto block = [&](TensorId id) { return Tensor{(*arena_)[id].buffer, plan_.offset(id), shape}; };
    ParameterBlocks blocks{block(first.value), block(*first.gradient), {}};
    for (TensorId id : first.state) blocks.state.push_back(block(id));
    return blocks;
}

void Network::initialise_parameters(std::uint64_t seed) {
    // Each parameter gets its own stream drawn in declaration order, so the same seed gives the
    // same weights on every device, and adding a layer at the end leaves the others unchanged.
    train::Random streams(seed);
    for (const Parameter& parameter : parameters_) {
        const std::uint64_t stream = (std::uint64_t(streams.next_u32()) << 32) | streams.next_u32();
        const Shape shape = plan_.shape(parameter.value);
        const std::vector<float> values = train::initial_values(parameter.initializer, shape.count(),
                                                                parameter.fans.fan_in, parameter.fans.fan_out, stream);
        runtime_.write((*arena_)[parameter.value], values);
    }
    dropout_seed_ = streams.next_u32();
}

Tensor Network::view(TensorId id, int count) const {
    Tensor tensor = (*arena_)[id];
    if (per_batch_[id]) tensor.shape.n = count;
    return tensor;
}

Tensor Network::output_of(int node, int count) const {
    return memory_of(node, count, false);
}

Tensor Network::gradient_of(int node, int count) const {
    return memory_of(node, count, true);
}

// A Flatten's output and gradient are its input's memory seen with the Flatten's shape.
Tensor Network::memory_of(int node, int count, bool gradient) const {
    const Node& n = *nodes_[node];
    const Node& owner = *nodes_[n.storage];
    Shape shape = n.output;
    shape.n = count;
    return view(gradient ? owner.dy : owner.y, count).reshaped(shape);
}

void Network::require_count(int count, const char* what) const {
    if (count < 1 || count > batch_size_)
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(count) +
                                    " samples do not fit a network built for batches of " +
                                    std::to_string(batch_size_));
}

void Network::upload_images(std::span<const float> images, int count) {
    require_count(count, "images");
    const std::size_t expected = static_cast<std::size_t>(count) * input_sample_.count();
    if (images.size() != expected)
        throw std::invalid_argument("images: " + std::to_string(images.size()) + " values for " +
                                    std::to_string(count) + " samples of " + input_sample_.sample_text());
    image_upload_.write(runtime_, output_of(0, count), images, "the batch's images");
}

void Network::upload_labels(std::span<const int> labels) {
    require_count(static_cast<int>(labels.size()), "labels");
    const int classes = nodes_.back()->output.c;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] < 0 || labels[i] >= classes)
            throw std::invalid_argument("label " + std::to_string(labels[i]) + " of sample " + std::to_string(i) +
                                        " is outside the network's " + std::to_string(classes) + " classes");
    label_upload_.write_ints(runtime_, view(labels_, static_cast<int>(labels.size())), labels, "the batch's labels");
}

void Network::upload_targets(std::span<const float> targets) {
    const std::size_t per_sample_count = nodes_.back()->output.per_sample();
    const int count = static_cast<int>(targets.size() / per_sample_count);
    require_count(count, "targets");
    target_upload_.write(runtime_, view(targets_, count), targets, "the batch's targets");
}

ops::ConvPlan Network::conv_plan(const Node& node) const {
    return {ops::ConvMethod::automatic, 0, node.columns ? (*arena_)[*node.columns] : Tensor{}};
}

void Network::forward(int count, bool training) {
    require_count(count, "forward");
    last_forward_training_ = training;
    for (std::size_t i = 1; i < nodes_.size(); ++i) forward_node(static_cast<int>(i), count, training);
}

void Network::forward_node(int index, int count, bool training) {
    Node& node = *nodes_[index];
    const LayerSpec& layer = node.spec;
    const Tensor x = output_of(node.inputs.front(), count);
    const Tensor y = output_of(index, count);
    auto parameter = [&](std::size_t i) { return (*arena_)[parameters_[node.parameters.at(i)].value]; };
    switch (layer.type) {
        case LayerType::input:
        case LayerType::flatten:
            break;
        case LayerType::dense:
            ops::dense_forward(runtime_, x, parameter(0), parameter(1), y, node.fused_activation);
            break;
        case LayerType::conv2d:
            ops::conv2d_forward(runtime_, layer.conv, x, parameter(0), parameter(1), y, (*arena_)[workspace_],
                                conv_plan(node), node.fused_activation);
            break;
        case LayerType::max_pool:
            ops::max_pool_forward(runtime_, layer.pool, x, y, view(node.scratch, count));
            break;
        case LayerType::avg_pool:
            ops::avg_pool_forward(runtime_, layer.pool, x, y);
            break;
        case LayerType::global_avg_pool:
            ops::global_avg_pool_forward(runtime_, x, y);
            break;
        case LayerType::activation:
            if (!node.fused_into_producer) ops::activation_forward(runtime_, layer.activation, layer.slope, x, y);
            break;
        case LayerType::dropout:
            if (training && layer.rate > 0.0f)
                ops::dropout_forward(runtime_, layer.rate, dropout_seed_ + static_cast<std::uint32_t>(index),
                                     static_cast<std::uint32_t>(step_), x, y, view(node.scratch, count));
            else
                ops::pass_gradient(runtime_, x, y, GradWrite::overwrite);  // a copy
            break;
        case LayerType::batch_norm:
            if (training)
                ops::batch_norm_forward_train(runtime_, layer.momentum, layer.epsilon, x, parameter(0), parameter(1), y,
                                              (*arena_)[node.saved_mean], (*arena_)[node.saved_inv_std], parameter(2),
                                              parameter(3));
            else
                ops::batch_norm_forward_eval(runtime_, layer.epsilon, x, parameter(0), parameter(1), parameter(2),
                                             parameter(3), y);
            break;
        case LayerType::add:
        case LayerType::concat: {
            std::vector<Tensor> inputs;
            for (int producer : node.inputs) inputs.push_back(output_of(producer, count));
            if (layer.type == LayerType::add)
                ops::add_forward(runtime_, inputs, y);
            else
                ops::concat_forward(runtime_, inputs, y);
            break;
        }
    }
}

void Network::loss(int count) {
    require_count(count, "loss");
    const int last = static_cast<int>(nodes_.size()) - 1;
    const Tensor out = flat_output(count);
    const Tensor dout = gradient_of(last, count).reshaped(out.shape);
    if (loss_kind_ == LossKind::softmax_cross_entropy) {
        ops::softmax_cross_entropy(runtime_, out, view(labels_, count), dout, view(sample_loss_, count),
                                   view(sample_correct_, count));
        ops::accumulate_metrics(runtime_, view(sample_loss_, count), view(sample_correct_, count), (*arena_)[totals_]);
    } else {
        ops::mean_squared_error(runtime_, out, view(targets_, count).reshaped(out.shape), dout,
                                view(sample_loss_, count));
        ops::accumulate_metrics(runtime_, view(sample_loss_, count), Tensor{}, (*arena_)[totals_]);
    }
    samples_since_clear_ += static_cast<std::size_t>(count);
}

void Network::backward(int count) {
    require_count(count, "backward");
    for (std::size_t i = nodes_.size(); i-- > 1;) backward_node(static_cast<int>(i), count);
}

void Network::backward_node(int index, int count) {
    Node& node = *nodes_[index];
    if (!node.gradient_needed) return;  // no parameter here or before: nothing to learn from it
    const LayerSpec& layer = node.spec;
    const int producer = node.inputs.front();
    const Tensor x = output_of(producer, count);
    const Tensor y = output_of(index, count);
    const Tensor dy = gradient_of(index, count);
    // Dense and Conv2D skip an input gradient nobody reads (the network's input, or a Flatten of it).
    const Tensor dx = gradient_of(producer, count);
    const Tensor dx_or_none = nodes_[producer]->gradient_needed ? dx : Tensor{};
    const GradWrite write = node.input_writes.front();
    auto value = [&](std::size_t i) { return (*arena_)[parameters_[node.parameters.at(i)].value]; };
    auto gradient = [&](std::size_t i) { return (*arena_)[*parameters_[node.parameters.at(i)].gradient]; };
    switch (layer.type) {
        case LayerType::input:
        case LayerType::flatten:
            break;
        case LayerType::dense:
            ops::dense_backward(runtime_, x, value(0), dy, dx_or_none, write, gradient(0), gradient(1),
                                node.fused_activation, y);
            break;
        case LayerType::conv2d:
            ops::conv2d_backward(runtime_, layer.conv, x, value(0), dy, dx_or_none, write, gradient(0), gradient(1),
                                 (*arena_)[workspace_], conv_plan(node), node.fused_activation, y);
            break;
        case LayerType::max_pool:
            ops::max_pool_backward(runtime_, layer.pool, dy, view(node.scratch, count), dx, write);
            break;
        case LayerType::avg_pool:
            ops::avg_pool_backward(runtime_, layer.pool, dy, dx, write);
            break;
        case LayerType::global_avg_pool:
            ops::global_avg_pool_backward(runtime_, dy, dx, write);
            break;
        case LayerType::activation:
            if (!node.fused_into_producer)
                ops::activation_backward(runtime_, layer.activation, layer.slope, x, y, dy, dx, write);
            break;
        case LayerType::dropout:
            // After an evaluation forward the layer was a copy, whatever its mask holds.
            if (layer.rate > 0.0f && last_forward_training_)
                ops::dropout_backward(runtime_, dy, view(node.scratch, count), dx, write);
            else
                ops::pass_gradient(runtime_, dy, dx, write);
            break;
        case LayerType::batch_norm:
            if (!last_forward_training_) {
                // The running statistics were constants: only the input's gradient means anything.
                if (nodes_[producer]->gradient_needed)
                    ops::batch_norm_backward_eval(runtime_, layer.epsilon, value(0), value(3), dy, dx, write);
                break;
            }
            ops::batch_norm_backward(runtime_, x, value(0), (*arena_)[node.saved_mean], (*arena_)[node.saved_inv_std],
                                     dy, dx, write, gradient(0), gradient(1));
            break;
        case LayerType::add:
            for (std::size_t i = 0; i < node.inputs.size(); ++i)
                if (nodes_[node.inputs[i]]->gradient_needed)
                    ops::pass_gradient(runtime_, dy, gradient_of(node.inputs[i], count), node.input_writes[i]);
            break;
        case LayerType::concat: {
            int offset = 0;
            for (std::size_t i = 0; i < node.inputs.size(); ++i) {
                const Tensor part = gradient_of(node.inputs[i], count);
                if (nodes_[node.inputs[i]]->gradient_needed)
                    ops::concat_backward(runtime_, dy, offset, part, node.input_writes[i]);
                offset += part.shape.c;
            }
            break;
        }
    }
}

std::vector<LayerTiming> Network::time_layers(int count) {
    require_count(count, "time_layers");
    using Clock = std::chrono::steady_clock;
    auto timed = [&](auto&& work) {
        runtime_.finish();
        const Clock::time_point start = Clock::now();
        work();
        runtime_.finish();
        return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    std::vector<LayerTiming> timings;
    for (std::size_t i = 1; i < nodes_.size(); ++i) {
        const Node& node = *nodes_[i];
        timings.push_back({node.spec.name, node.spec.type,
                           timed([&] { forward_node(static_cast<int>(i), count, true); }), 0,
                           node.fused_into_producer ? nodes_[node.inputs.front()]->spec.name : std::string()});
    }
    timings.push_back({"loss", LayerType::input, timed([&] { loss(count); }), 0, {}});
    for (std::size_t i = nodes_.size(); i-- > 1;)
        timings[i - 1].backward_ms = timed([&] { backward_node(static_cast<int>(i), count); });
    return timings;
}

void Network::update(float learning_rate) {
    // The count is an int (the dropout masks and Adam's bias correction follow it): refuse to
    // wrap it to a negative step, which no message could explain.
    if (step_ == std::numeric_limits<int>::max())
        throw std::overflow_error("the network has made " + std::to_string(step_) +
                                  " updates, the most it can count; start a new run from its weights");
    ++step_;
    // One command for every parameter: the optimisers work element by element, so updating the
    // blocks is updating each parameter, in fewer launches (a CPU device or a small batch spends
    // more on each launch than on the update).
    if (parameter_blocks_) {
        train::optimizer_step(runtime_, optimizer_, learning_rate, step_, parameter_blocks_->values,
                              parameter_blocks_->gradients, parameter_blocks_->state);
        return;
    }
    for (const Parameter& parameter : parameters_) {
        if (!parameter.gradient) continue;
        train::optimizer_step(runtime_, optimizer_, learning_rate, step_, (*arena_)[parameter.value],
                              (*arena_)[*parameter.gradient], parameter.state_views);
    }
}

void Network::learn(int count, float learning_rate) {
    forward(count, true);
    loss(count);
    backward(count);
    try {
        update(learning_rate);
    } catch (...) {
        update_interrupted_ = true;
        throw;
    }
}

void Network::train_step(std::span<const float> images, std::span<const int> labels, float learning_rate) {
    if (loss_kind_ != LossKind::softmax_cross_entropy)
        throw std::logic_error("train_step with labels needs a softmax cross-entropy network");
    const int count = static_cast<int>(labels.size());
    upload_images(images, count);
    upload_labels(labels);
    learn(count, learning_rate);
}

Tensor Network::input_batch(int count) const {
    require_count(count, "input batch");
    return output_of(0, count);
}

Tensor Network::labels_batch(int count) const {
    require_count(count, "labels batch");
    return view(labels_, count);
}

void Network::train_step_loaded(int count, float learning_rate) {
    if (loss_kind_ != LossKind::softmax_cross_entropy)
        throw std::logic_error("train_step_loaded needs a softmax cross-entropy network");
    learn(count, learning_rate);
}

void Network::train_step_targets(std::span<const float> images, std::span<const float> targets, float learning_rate) {
    if (loss_kind_ != LossKind::mean_squared_error)
        throw std::logic_error("train_step_targets needs a mean-squared-error network");
    const int count = static_cast<int>(targets.size() / nodes_.back()->output.per_sample());
    upload_images(images, count);
    upload_targets(targets);
    learn(count, learning_rate);
}

void Network::evaluate_batch(std::span<const float> images, std::span<const int> labels) {
    const int count = static_cast<int>(labels.size());
    upload_images(images, count);
    upload_labels(labels);
    forward(count, false);
    loss(count);
}

// The last layer's output for `count` samples as rows, and (a softmax network's) their softmax.
Tensor Network::flat_output(int count) const {
    const int last = static_cast<int>(nodes_.size()) - 1;
    return output_of(last, count).reshaped(Shape{count, static_cast<int>(nodes_[last]->output.per_sample()), 1, 1});
}

Tensor Network::softmax_of_output(int count) {
    const Tensor out = flat_output(count);
    const Tensor probabilities = view(probabilities_, count).reshaped(out.shape);
    ops::softmax(runtime_, out, probabilities);
    return probabilities;
}

std::vector<float> Network::predict(std::span<const float> images, int count) {
    upload_images(images, count);
    forward(count, false);
    if (loss_kind_ != LossKind::softmax_cross_entropy) return runtime_.read(flat_output(count));
    return runtime_.read(softmax_of_output(count));
}

std::vector<float> Network::read_output(const std::string& layer, int count) {
    require_count(count, "read_output");
    for (std::size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i]->spec.name == layer) return runtime_.read(output_of(static_cast<int>(i), count));
    throw std::invalid_argument("the network has no layer named '" + layer + "'");
}

void Network::backward_from_output(std::span<const float> output_gradient, int count) {
    require_count(count, "backward_from_output");
    const int last = static_cast<int>(nodes_.size()) - 1;
    const Tensor dout = gradient_of(last, count);
    if (output_gradient.size() != dout.count())
        throw std::invalid_argument("backward_from_output: " + std::to_string(output_gradient.size()) + " values for " +
                                    std::to_string(count) + " samples of " +
                                    per_sample(nodes_[last]->output).sample_text());
    runtime_.write(dout, output_gradient);
    backward(count);
}

std::vector<float> Network::read_input_gradient(int count) {
    if (!options_.input_gradient)
        throw std::logic_error("read_input_gradient needs a network built with NetworkOptions::input_gradient");
    require_count(count, "read_input_gradient");
    return runtime_.read(gradient_of(0, count));
}

Network::SampleOutputs Network::evaluate_samples(std::span<const float> images, std::span<const int> labels) {
    if (loss_kind_ != LossKind::softmax_cross_entropy)
        throw std::logic_error("evaluate_samples needs a softmax cross-entropy network");
    evaluate_batch(images, labels);
    const int count = static_cast<int>(labels.size());
    return {runtime_.read(softmax_of_output(count)), runtime_.read(view(sample_loss_, count))};
}

Network::Totals Network::read_totals() {
    const std::vector<float> values = runtime_.read((*arena_)[totals_]);
    return Totals{values[0], values[1], samples_since_clear_};
}

void Network::clear_totals() {
    ops::clear_metrics(runtime_, (*arena_)[totals_]);
    samples_since_clear_ = 0;
}

Tensor Network::totals_tensor() const {
    return (*arena_)[totals_];
}

std::vector<Network::NonFiniteValues> Network::non_finite_values() {
    std::vector<ParameterView> arrays = parameters();
    for (ParameterView& state : optimizer_state()) arrays.push_back(std::move(state));
    const Tensor counts = (*arena_)[non_finite_counts_];
    runtime_.write_ints(counts, std::vector<int>(counts.count(), 0));
    for (std::size_t i = 0; i < arrays.size(); ++i)
        ops::count_non_finite(runtime_, arrays[i].value, Tensor{counts.buffer, counts.offset + i, Shape{1, 1, 1, 1}});
    const std::vector<int> found = runtime_.read_ints(counts);
    std::vector<NonFiniteValues> bad;
    for (std::size_t i = 0; i < arrays.size(); ++i)
        if (found[i] > 0) bad.push_back({arrays[i].name, static_cast<std::size_t>(found[i])});
    return bad;
}

Shape Network::input_shape() const {
    return input_sample_;
}

Shape Network::output_shape() const {
    return per_sample(nodes_.back()->output);
}

std::vector<LayerSummary> Network::summary() const {
    std::vector<LayerSummary> layers;
    for (const auto& node : nodes_) {
        LayerSummary entry{node->spec.name, node->spec.type, per_sample(node->output), 0};
        for (std::size_t p : node->parameters) entry.parameters += plan_.shape(parameters_[p].value).count();
        layers.push_back(std::move(entry));
    }
    return layers;
}

std::size_t Network::trainable_parameter_count() const {
    std::size_t total = 0;
    for (const Parameter& parameter : parameters_)
        if (parameter.gradient) total += plan_.shape(parameter.value).count();
    return total;
}

std::size_t Network::device_bytes() const {
    return arena_->bytes();
}

std::vector<ParameterView> Network::parameters() const {
    std::vector<ParameterView> views;
    for (const Parameter& parameter : parameters_)
        views.push_back({parameter.name, parameter.dims, (*arena_)[parameter.value],
                         parameter.gradient ? (*arena_)[*parameter.gradient] : Tensor{}});
    return views;
}

std::vector<ParameterView> Network::optimizer_state() const {
    std::vector<ParameterView> views;
    for (const Parameter& parameter : parameters_)
        for (std::size_t s = 0; s < parameter.state.size(); ++s)
            views.push_back({parameter.name + ".state" + std::to_string(s), parameter.dims,
                             (*arena_)[parameter.state[s]], Tensor{}});
    return views;
}

void Network::set_updates(int updates) {
    if (updates < 0) throw std::invalid_argument("a network cannot have made " + std::to_string(updates) + " updates");
    step_ = updates;
}

}  // namespace bps::model
