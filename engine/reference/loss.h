#pragma once
// Plain C++ reference for ops/loss.h, in float (to compare with OpenCL) or double (for
// finite-difference checks). Rows are samples of k values.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace bps::ref {

// Stable like the OpenCL kernel (exp of z - max only), so large logits stay finite here too.
template <typename T>
void softmax_cross_entropy(std::size_t k, std::span<const T> logits, std::span<const int> labels, std::span<T> dlogits,
                           std::span<T> sample_loss, std::span<T> sample_correct) {
    const std::size_t n = labels.size();
    for (std::size_t s = 0; s < n; ++s) {
        const T* row = logits.data() + s * k;
        std::size_t best = 0;
        for (std::size_t j = 1; j < k; ++j)
            if (row[j] > row[best]) best = j;
        const T top = row[best];
        T sum = 0;
        for (std::size_t j = 0; j < k; ++j) sum += std::exp(row[j] - top);
        const int label = labels[s];
        const bool valid = label >= 0 && static_cast<std::size_t>(label) < k;
        const T nan = std::numeric_limits<T>::quiet_NaN();
        sample_loss[s] = valid ? std::log(sum) - (row[label] - top) : nan;
        sample_correct[s] = valid && best == static_cast<std::size_t>(label) ? T(1) : T(0);
        for (std::size_t j = 0; j < k; ++j) {
            const T onehot = valid && j == static_cast<std::size_t>(label) ? T(1) : T(0);
            dlogits[s * k + j] = valid ? (std::exp(row[j] - top) / sum - onehot) / static_cast<T>(n) : nan;
        }
    }
}

template <typename T>
void softmax(std::size_t k, std::span<const T> logits, std::span<T> probabilities) {
    for (std::size_t first = 0; first < logits.size(); first += k) {
        T top = logits[first];
        for (std::size_t j = 1; j < k; ++j) top = std::max(top, logits[first + j]);
        T sum = 0;
        for (std::size_t j = 0; j < k; ++j) sum += std::exp(logits[first + j] - top);
        for (std::size_t j = 0; j < k; ++j) probabilities[first + j] = std::exp(logits[first + j] - top) / sum;
    }
}

// sample_loss[s] = mean_j (p - t)^2; dpredictions = 2 (p - t) / (n * k).
template <typename T>
void mean_squared_error(std::size_t k, std::span<const T> predictions, std::span<const T> targets,
                        std::span<T> dpredictions, std::span<T> sample_loss) {
    const std::size_t n = sample_loss.size();
    for (std::size_t s = 0; s < n; ++s) {
        T sum = 0;
        for (std::size_t j = 0; j < k; ++j) {
            const T d = predictions[s * k + j] - targets[s * k + j];
            sum += d * d;
            dpredictions[s * k + j] = T(2) * d / static_cast<T>(n * k);
        }
        sample_loss[s] = sum / static_cast<T>(k);
    }
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_LOSS_INSTANCES(prefix, T)                                                                              \
    prefix template void softmax_cross_entropy<T>(std::size_t, std::span<const T>, std::span<const int>, std::span<T>, \
                                                  std::span<T>, std::span<T>);                                         \
    prefix template void softmax<T>(std::size_t, std::span<const T>, std::span<T>);                                    \
    prefix template void mean_squared_error<T>(std::size_t, std::span<const T>, std::span<const T>, std::span<T>,      \
                                               std::span<T>);
BPS_REF_LOSS_INSTANCES(extern, float)
BPS_REF_LOSS_INSTANCES(extern, double)

}  // namespace bps::ref
