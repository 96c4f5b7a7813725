#pragma once
// Losses fused with their gradient: one pass over the outputs gives the per-sample losses (for
// the metrics) and the gradient of the batch's mean loss (for backpropagation).
//
// Tolerances against ref:: in float (normwise relative error): softmax cross-entropy loss,
// gradient and probabilities 1e-6 (a max, a sum of K exps and a log per sample: a few ulp, the
// tests use K up to 10 and logits up to 100); correct flags exact (the same comparisons on the
// same floats); mean squared error 1e-6 (a sum of K squares per sample).
#include "engine/ops/runtime.h"

namespace bps::ops {

// logits: N x K x 1 x 1 (K = c*h*w); labels: int32 N x 1 x 1 x 1 (class indices 0..K-1).
// Numerically stable: loss = log(sum exp(z - max)) - (z_label - max).
// dlogits = (softmax(logits) - onehot(label)) / N (the gradient of the MEAN loss over the batch),
// sample_loss[n] = cross-entropy of sample n, sample_correct[n] = 1.0f if argmax(logits[n]) == label
// (first max on ties) else 0.0f. sample_loss, sample_correct: N x 1 x 1 x 1. A label outside 0..K-1
// is never used as an index: that sample's loss and gradient row are NaN (so bad data shows in
// the metrics instead of training silently on a wrong class) and it counts as not correct.
void softmax_cross_entropy(Runtime& runtime, const Tensor& logits, const Tensor& labels, const Tensor& dlogits,
                           const Tensor& sample_loss, const Tensor& sample_correct);

// Probabilities for prediction: N x K, the same stable softmax as above.
void softmax(Runtime& runtime, const Tensor& logits, const Tensor& probabilities);

// Mean squared error, Keras convention: sample_loss[n] = mean_k (p - t)^2 and
// dpredictions = 2 (p - t) / (N * K), the gradient of the mean over the batch of the sample
// losses. predictions, targets, dpredictions: N x K (any c*h*w = K, the same count);
// sample_loss: N values.
void mean_squared_error(Runtime& runtime, const Tensor& predictions, const Tensor& targets, const Tensor& dpredictions,
                        const Tensor& sample_loss);

}  // namespace bps::ops
