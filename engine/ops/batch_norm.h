#pragma once
// Batch normalisation per channel c over the N * H * W values of that channel. Dense activations
// are N x C x 1 x 1, so the same op serves dense and convolution outputs. gamma, beta,
// running_mean, running_var, saved_mean and saved_inv_std are 1 x C x 1 x 1.
//
// Each channel is reduced by one work-group (a local-memory tree of at most 64 work-items), and
// the variance is computed around the mean (two passes), never as E[x^2] - E[x]^2, whose
// cancellation loses the variance of inputs far from zero.
//
// Tolerances against engine/reference/batch_norm.h (float32, normwise relative error):
//   forward (train and eval), running statistics, saved statistics: 1e-5 (float sums of up to a
//     few hundred terms per channel in the tests);
//   backward dx, dgamma, dbeta: 1e-5 (the same sums; dx subtracts the mean gradient, so its
//     error is relative to the size of dy * gamma * inv_std, which the normwise measure uses).
#include "engine/ops/runtime.h"

namespace bps::ops {

// Training: batch mean and biased variance; y = gamma * (x - mean) * inv_std + beta with
// inv_std = 1 / sqrt(var + epsilon); saves mean and inv_std for backward;
// running = momentum * running + (1 - momentum) * batch value, where the running variance uses the
// unbiased batch variance (times M / (M - 1), M = N * H * W; M == 1 leaves it unchanged).
void batch_norm_forward_train(Runtime& runtime, float momentum, float epsilon, const Tensor& x, const Tensor& gamma,
                              const Tensor& beta, const Tensor& y, const Tensor& saved_mean,
                              const Tensor& saved_inv_std, const Tensor& running_mean, const Tensor& running_var);

// Evaluation: y = gamma * (x - running_mean) / sqrt(running_var + epsilon) + beta.
void batch_norm_forward_eval(Runtime& runtime, float epsilon, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             const Tensor& running_mean, const Tensor& running_var, const Tensor& y);

// The input gradient of the evaluation-mode forward (the running statistics are constants, as
// when looking at what a trained network's output depends on): dx =|+= dy * gamma /
// sqrt(running_var + epsilon). Nothing is learned from it, so no dgamma or dbeta.
void batch_norm_backward_eval(Runtime& runtime, float epsilon, const Tensor& gamma, const Tensor& running_var,
                              const Tensor& dy, const Tensor& dx, GradWrite write);

// Backward of the training-mode forward: dgamma, dbeta overwritten; dx =|+= the full
// batch-statistics gradient (dx.buffer == nullptr: only dgamma and dbeta).
void batch_norm_backward(Runtime& runtime, const Tensor& x, const Tensor& gamma, const Tensor& saved_mean,
                         const Tensor& saved_inv_std, const Tensor& dy, const Tensor& dx, GradWrite write,
                         const Tensor& dgamma, const Tensor& dbeta);

}  // namespace bps::ops
