#include "engine/train/initializer.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/train/random.h"

namespace bps::train {

namespace {

constexpr std::array all_kinds{Initializer::he_uniform,    Initializer::he_normal, Initializer::glorot_uniform,
                               Initializer::glorot_normal, Initializer::zeros,     Initializer::ones};

// Keras's TruncatedNormal correction: the stddev of a unit normal cut at +-2.
constexpr double truncation_stddev = 0.87962566103423978;

void uniform_fill(std::vector<float>& values, double limit, Random& random) {
    const auto bound = static_cast<float>(limit);
    for (float& v : values) v = random.uniform(-bound, bound);
}

void truncated_normal_fill(std::vector<float>& values, double stddev, Random& random) {
    const auto sigma = static_cast<float>(stddev / truncation_stddev);
    const float cut = 2.0f * sigma;
    for (float& v : values) {
        do {
            v = random.normal(0.0f, sigma);
        } while (std::abs(v) > cut);
    }
}

}  // namespace

std::vector<float> initial_values(Initializer kind, std::size_t count, int fan_in, int fan_out, std::uint64_t seed) {
    const bool needs_fan_in = kind == Initializer::he_uniform || kind == Initializer::he_normal;
    const bool needs_both = kind == Initializer::glorot_uniform || kind == Initializer::glorot_normal;
    if ((needs_fan_in && fan_in < 1) || (needs_both && (fan_in < 1 || fan_out < 1)))
        throw std::invalid_argument(std::string("initializer ") + initializer_name(kind) + ": fan_in " +
                                    std::to_string(fan_in) + " and fan_out " + std::to_string(fan_out) +
                                    " must be at least 1");
    std::vector<float> values(count, 0.0f);
    Random random(seed);
    const double fan_avg_sum = static_cast<double>(fan_in) + static_cast<double>(fan_out);
    switch (kind) {
        case Initializer::he_uniform:
            uniform_fill(values, std::sqrt(6.0 / fan_in), random);
            break;
        case Initializer::he_normal:
            truncated_normal_fill(values, std::sqrt(2.0 / fan_in), random);
            break;
        case Initializer::glorot_uniform:
            uniform_fill(values, std::sqrt(6.0 / fan_avg_sum), random);
            break;
        case Initializer::glorot_normal:
            truncated_normal_fill(values, std::sqrt(2.0 / fan_avg_sum), random);
            break;
        case Initializer::zeros:
            break;
        case Initializer::ones:
            values.assign(count, 1.0f);
            break;
    }
    return values;
}

Fans dense_fans(const Shape& weight) {
    return {weight.c, weight.n};
}

Fans conv_fans(const Shape& weight) {
    const int field = weight.h * weight.w;
    return {weight.c * field, weight.n * field};
}

const char* initializer_name(Initializer kind) {
    switch (kind) {
        case Initializer::he_uniform:
            return "he_uniform";
        case Initializer::he_normal:
            return "he_normal";
        case Initializer::glorot_uniform:
            return "glorot_uniform";
        case Initializer::glorot_normal:
            return "glorot_normal";
        case Initializer::zeros:
            return "zeros";
        case Initializer::ones:
            return "ones";
    }
    return "?";
}

std::optional<Initializer> initializer_from_name(std::string_view name) {
    for (const Initializer kind : all_kinds)
        if (name == initializer_name(kind)) return kind;
    return std::nullopt;
}

}  // namespace bps::train
