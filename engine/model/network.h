#pragma once
// A network built on one device: the layer graph in execution order, every tensor it needs
// planned into one arena (activations, gradients, parameters, optimiser state, scratch), and the
// training step: forward, fused loss, backward, parameter update, all enqueued without waiting
// on the device. Reading metrics and predictions are the only blocking calls.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/graph_analysis.h"
#include "engine/model/network_spec.h"
#include "engine/ops/runtime.h"
#include "engine/ops/staged_upload.h"
#include "engine/tensor/tensor_arena.h"
#include "engine/train/optimizer.h"

namespace bps::ops {
struct ConvPlan;
}

namespace bps::model {

struct LayerSummary {
    std::string name;
    LayerType type;
    Shape output;                // per sample (n = 1)
    std::size_t parameters = 0;  // trainable and non-trainable (BatchNorm's running statistics)
};

// Device time of one layer in one training step, measured with a queue finish around each
// layer (so the sum is larger than a normal step, which never waits).
struct LayerTiming {
    std::string name;
    LayerType type;
    double forward_ms = 0;
    double backward_ms = 0;
    // The layer that runs this Activation inside its own kernels (then its times are in that
    // layer's, and its own are 0); empty for every other layer.
    std::string fused_into;
};

struct ParameterView {
    std::string name;  // "<layer>.weight", "<layer>.bias", "<layer>.gamma", "<layer>.running_mean", ...
    // The dims it is saved with, as its layer declares them: [out, in, kh, kw] for a Conv2D weight
    // (also 1x1), [units, inputs] for a Dense weight, [c] for a per-channel vector. Not guessed from
    // the tensor's shape, where a 1x1 Conv2D weight looks like a Dense one.
    std::vector<int> dims;
    Tensor value;
    Tensor gradient;  // buffer nullptr for non-trainable values
};

// What a network built for looking inside it needs beyond training (session::Predictor).
struct NetworkOptions {
    // Backward also computes the gradient with respect to the input (saliency); training skips it.
    bool input_gradient = false;
    // Every layer keeps its own output: an Activation is not fused into the Dense or Conv2D layer
    // before it, whose output before the activation could not be read otherwise. Training fuses.
    bool every_output = false;
};

class Network {
public:
    // Checks the graph and shapes (ModelError), plans and allocates the memory for batches of up
    // to `batch_size` samples, and initialises the parameters from `seed`.
    Network(ops::Runtime& runtime, const NetworkSpec& spec, int batch_size, const train::OptimizerSettings& optimizer,
            std::uint64_t seed, NetworkOptions options = {});
    ~Network();
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    int batch_size() const noexcept { return batch_size_; }
    LossKind loss_kind() const noexcept { return loss_kind_; }
    Shape input_shape() const;   // per sample
    Shape output_shape() const;  // per sample
    std::vector<LayerSummary> summary() const;
    std::size_t trainable_parameter_count() const;
    std::size_t device_bytes() const;

    // One training step on a batch of `labels.size()` samples (at most batch_size): images are
    // NCHW floats. For a mean-squared-error network use the overload with targets.
    void train_step(std::span<const float> images, std::span<const int> labels, float learning_rate);
    void train_step_targets(std::span<const float> images, std::span<const float> targets, float learning_rate);
    // The same on a batch that is already on the device (gathered there, see
    // session/device_training_set.h): input_batch and labels_batch are the tensors to fill for
    // `count` samples, then train_step_loaded trains on what they hold.
    Tensor input_batch(int count) const;
    Tensor labels_batch(int count) const;
    void train_step_loaded(int count, float learning_rate);
    // Forward in evaluation mode (running BatchNorm statistics, no dropout); adds the loss and
    // correct count to the metric totals.
    void evaluate_batch(std::span<const float> images, std::span<const int> labels);
    // Class probabilities (softmax networks) or outputs (MSE networks), count x output size.
    std::vector<float> predict(std::span<const float> images, int count);
    // evaluate_batch that also reads back every sample's class probabilities (count x classes)
    // and loss, as the totals count them (a softmax cross-entropy network).
    struct SampleOutputs {
        std::vector<float> probabilities, losses;
    };
    SampleOutputs evaluate_samples(std::span<const float> images, std::span<const int> labels);

    // Looking inside, after a forward over `count` samples: the output of the layer named `layer`
    // (count x its output per sample; the input layer's is the images as uploaded).
    // std::invalid_argument naming a layer the network lacks.
    std::vector<float> read_output(const std::string& layer, int count);
    // Backward from a given gradient of the last layer's output (count x output size; a one-hot
    // row asks for a class score's gradient), after a forward in either mode: a forward in
    // evaluation mode gets the gradient of that mode (Dropout passes it, BatchNorm's statistics
    // are constants). Parameter gradients are overwritten as in training; nothing is updated.
    void backward_from_output(std::span<const float> output_gradient, int count);
    // After backward_from_output, the gradient with respect to the input (count x input size);
    // std::logic_error unless the network was built with NetworkOptions::input_gradient.
    std::vector<float> read_input_gradient(int count);

    // Sums since the last clear over every trained or evaluated sample: loss and correct
    // predictions (blocking read of two floats), and how many samples that was.
    struct Totals {
        double loss_sum = 0;
        double correct = 0;
        std::size_t samples = 0;
    };
    Totals read_totals();
    void clear_totals();
    // The device tensor the totals accumulate in (for asynchronous reads).
    Tensor totals_tensor() const;

    std::vector<ParameterView> parameters() const;
    // The optimiser's state of every trainable parameter ("fc1.weight.state0": momentum, Adam's
    // moments), and the number of updates made (Adam's bias correction and the dropout masks
    // depend on it): what a checkpoint keeps so that a resumed run goes on exactly.
    std::vector<ParameterView> optimizer_state() const;
    int updates() const noexcept { return step_; }
    // The parameters and optimiser states holding NaN or infinite values, with how many each
    // (none: all finite). Counted on the device, one small launch per array, then one read of a
    // counter per array: cheap enough for every epoch, and nothing large crosses to the host.
    struct NonFiniteValues {
        std::string name;  // as parameters() and optimizer_state() name it
        std::size_t count = 0;
    };
    std::vector<NonFiniteValues> non_finite_values();
    void set_updates(int updates);
    // A training step failed during its update (a launch refused by the device). The update is one
    // command where the parameters' blocks line up, else one per parameter, so some parameters
    // may have the step and others not: the weights on the device are taken to be no step's.
    bool update_interrupted() const noexcept { return update_interrupted_; }

    // The parts of a step, for tests that check gradients through the whole graph.
    void upload_images(std::span<const float> images, int count);
    void upload_labels(std::span<const int> labels);
    void upload_targets(std::span<const float> targets);
    void forward(int count, bool training);
    void loss(int count);  // also accumulates the totals
    void backward(int count);
    void update(float learning_rate);
    // One forward and backward pass over the uploaded batch, timing every layer (and the loss,
    // as a last entry named "loss").
    std::vector<LayerTiming> time_layers(int count);

private:
    struct Node;
    struct Parameter;
    void build_graph(const NetworkSpec& spec);
    // Fuses each Activation layer into the Dense or Conv2D layer it reads, where nothing else
    // reads that layer and its derivative follows from its output (ops::FusedActivation).
    void fuse_activations();
    void plan_memory();
    void place_parameters();
    // The trainable values, gradients and optimiser states as three (or more) blocks that line
    // up element for element; none when they do not (then update runs per parameter).
    struct ParameterBlocks {
        Tensor values, gradients;
        std::vector<Tensor> state;
    };
    std::optional<ParameterBlocks> parameter_blocks() const;
    void initialise_parameters(std::uint64_t seed);
    Tensor view(TensorId id, int count) const;
    Tensor output_of(int node, int count) const;
    Tensor gradient_of(int node, int count) const;
    Tensor memory_of(int node, int count, bool gradient) const;
    void forward_node(int index, int count, bool training);
    ops::ConvPlan conv_plan(const Node& node) const;
    void learn(int count, float learning_rate);  // forward, loss, backward, update
    void backward_node(int index, int count);
    void require_count(int count, const char* what) const;
    Tensor flat_output(int count) const;
    Tensor softmax_of_output(int count);

    ops::Runtime& runtime_;
    int batch_size_;
    NetworkOptions options_;
    bool last_forward_training_ = true;  // which gradient backward computes (backward_from_output)
    Shape input_sample_;
    LossKind loss_kind_;
    train::OptimizerSettings optimizer_;
    std::vector<std::unique_ptr<Node>> nodes_;  // in execution (topological) order
    std::vector<Parameter> parameters_;
    TensorPlan plan_;
    std::vector<bool> per_batch_;  // by TensorId: the first dimension is the batch
    std::unique_ptr<TensorArena> arena_;
    TensorId labels_ = 0, targets_ = 0, sample_loss_ = 0, sample_correct_ = 0, totals_ = 0, probabilities_ = 0;
    TensorId non_finite_counts_ = 0;
    TensorId workspace_ = 0;
    bool has_workspace_ = false;
    std::optional<ParameterBlocks> parameter_blocks_;
    // Batches go up without blocking the host (declared last: destroyed before the arena, they
    // wait for their pending writes).
    ops::StagedUpload image_upload_, label_upload_, target_upload_;
    std::size_t samples_since_clear_ = 0;
    int step_ = 0;
    bool update_interrupted_ = false;
    std::uint32_t dropout_seed_ = 0;
};

}  // namespace bps::model
