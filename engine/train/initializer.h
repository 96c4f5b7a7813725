#pragma once
// Initial parameter values, as Keras defines its initialisers, drawn from train::Random so a seed gives
// the same weights on every platform.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/tensor/shape.h"

namespace bps::train {

// he_uniform: U(-limit, limit), limit = sqrt(6 / fan_in).
// he_normal: normal of stddev sqrt(2 / fan_in) / 0.87962566103423978, values beyond two of those stddevs
//   redrawn (Keras's truncated normal: the division makes the truncated distribution's stddev sqrt(2 / fan_in)).
// glorot_uniform: limit sqrt(6 / (fan_in + fan_out)); glorot_normal: stddev sqrt(2 / (fan_in + fan_out)),
//   truncated likewise. zeros, ones: constants (biases, batch-norm scale and shift).
enum class Initializer { he_uniform, he_normal, glorot_uniform, glorot_normal, zeros, ones };

// `count` values. Throws std::invalid_argument when a random kind gets a fan below 1.
std::vector<float> initial_values(Initializer kind, std::size_t count, int fan_in, int fan_out, std::uint64_t seed);

struct Fans {
    int fan_in;
    int fan_out;
};
// Dense weight out x in x 1 x 1: fan_in = in, fan_out = out.
Fans dense_fans(const Shape& weight);
// Conv weight Cout x Cin x kh x kw: fan_in = Cin * kh * kw, fan_out = Cout * kh * kw (Keras).
Fans conv_fans(const Shape& weight);

const char* initializer_name(Initializer kind);  // "he_uniform", ...
std::optional<Initializer> initializer_from_name(std::string_view name);

}  // namespace bps::train
