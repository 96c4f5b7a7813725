#pragma once
// Which optimiser trains a network and with what hyper-parameters: a description with no device
// involved, so project files, the CLI and the studio can hold one (engine/train/optimizer.h runs it).
namespace bps::train {

enum class OptimizerKind { sgd, adam, adamw };

struct OptimizerSettings {
    OptimizerKind kind = OptimizerKind::sgd;
    float learning_rate = 0.01f;
    float momentum = 0.9f;                                // SGD
    bool nesterov = false;                                // SGD
    float weight_decay = 0.0f;                            // SGD and Adam: L2 added to the gradient; AdamW: decoupled
    float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-7f;  // Adam, AdamW (epsilon as Keras)
};

// The learning rates a run accepts: above 0 and at most max_learning_rate (learning_rate_range in
// words). Beyond 10 every network diverges at once; a rate that float32 rounds to 0 (below about
// 1e-38) trains nothing.
inline constexpr double max_learning_rate = 10.0;
inline constexpr const char* learning_rate_range = "above 0 and at most 10";
bool learning_rate_accepted(double rate);

// How many state tensors (same shape as the parameter) the optimiser keeps per parameter: SGD 1 (velocity;
// 0 when momentum == 0), Adam/AdamW 2 (first and second moments, in that order). They start at zero.
int optimizer_state_count(const OptimizerSettings& settings);

}  // namespace bps::train
