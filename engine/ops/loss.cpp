#include "engine/ops/loss.h"

#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/loss.cl), named once.
const KernelId softmax_cross_entropy_kernel{"loss", "softmax_cross_entropy"};
const KernelId softmax_kernel{"loss", "softmax"};
const KernelId mean_squared_error_kernel{"loss", "mean_squared_error"};

[[noreturn]] void refuse(const std::string& op, const std::string& what, const Tensor& a, const Tensor& b) {
    throw std::invalid_argument(op + ": " + what + " " + a.shape.to_string() + " and " + b.shape.to_string() +
                                " do not match");
}

// Both tensors hold the same number of values (a gradient or a target has its output's size).
void require_same_count(const std::string& op, const std::string& what, const Tensor& a, const Tensor& b) {
    if (a.count() != b.count()) refuse(op, what, a, b);
}

// One value per sample of `batch`.
void require_per_sample(const std::string& op, const std::string& what, const Tensor& batch, const Tensor& values) {
    if (values.count() != static_cast<std::size_t>(batch.shape.n)) refuse(op, what, batch, values);
}
}  // namespace

void softmax_cross_entropy(Runtime& runtime, const Tensor& logits, const Tensor& labels, const Tensor& dlogits,
                           const Tensor& sample_loss, const Tensor& sample_correct) {
    const std::string op = "softmax cross-entropy";
    require_per_sample(op, "logits and labels", logits, labels);
    require_same_count(op, "logits and their gradient", logits, dlogits);
    require_per_sample(op, "logits and sample losses", logits, sample_loss);
    require_per_sample(op, "logits and correct flags", logits, sample_correct);
    const int n = logits.shape.n;
    runtime.run(softmax_cross_entropy_kernel, static_cast<std::size_t>(n), n,
                static_cast<int>(logits.shape.per_sample()), 1.0f / static_cast<float>(n), logits, labels, dlogits,
                sample_loss, sample_correct);
}

void softmax(Runtime& runtime, const Tensor& logits, const Tensor& probabilities) {
    require_same_count("softmax", "logits and probabilities", logits, probabilities);
    const int n = logits.shape.n;
    runtime.run(softmax_kernel, static_cast<std::size_t>(n), n, static_cast<int>(logits.shape.per_sample()), logits,
                probabilities);
}

void mean_squared_error(Runtime& runtime, const Tensor& predictions, const Tensor& targets, const Tensor& dpredictions,
                        const Tensor& sample_loss) {
    const std::string op = "mean squared error";
    require_same_count(op, "predictions and targets", predictions, targets);
    require_same_count(op, "predictions and their gradient", predictions, dpredictions);
    require_per_sample(op, "predictions and sample losses", predictions, sample_loss);
    const int n = predictions.shape.n;
    const int k = static_cast<int>(predictions.shape.per_sample());
    runtime.run(mean_squared_error_kernel, static_cast<std::size_t>(n), n, k,
                2.0f / (static_cast<float>(n) * static_cast<float>(k)), predictions, targets, dpredictions,
                sample_loss);
}

}  // namespace bps::ops
