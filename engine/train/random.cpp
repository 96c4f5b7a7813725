#include "engine/train/random.h"

#include <cmath>
#include <stdexcept>

namespace bps::train {

std::uint64_t SplitMix64::next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Pcg32::Pcg32(std::uint64_t initstate, std::uint64_t initseq) : increment_((initseq << 1u) | 1u) {
    next();
    state_ += initstate;
    next();
}

std::uint32_t Pcg32::next() {
    const std::uint64_t old = state_;
    state_ = old * 6364136223846793005ull + increment_;
    const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
    const auto rotation = static_cast<std::uint32_t>(old >> 59u);
    return (xorshifted >> rotation) | (xorshifted << ((0u - rotation) & 31u));
}

namespace {
Pcg32 seeded(std::uint64_t seed) {
    SplitMix64 mix(seed);
    const std::uint64_t state = mix.next();
    return Pcg32(state, mix.next());
}
}  // namespace

Random::Random(std::uint64_t seed) : generator_(seeded(seed)) {}

std::uint32_t Random::next_u32() {
    return generator_.next();
}

float Random::uniform() {
    // 24 bits fill a float's significand exactly, so the result is never rounded up to 1.
    return static_cast<float>(next_u32() >> 8) * 0x1.0p-24f;
}

float Random::uniform(float low, float high) {
    const float value = low + (high - low) * uniform();
    // low + (high - low) * u can round up to high when u is just below 1.
    return value < high ? value : std::nextafter(high, low);
}

double Random::open_symmetric() {
    const std::uint64_t bits = (static_cast<std::uint64_t>(next_u32()) << 32) | next_u32();
    return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

float Random::normal(float mean, float stddev) {
    for (;;) {
        const double u = open_symmetric();
        const double v = open_symmetric();
        const double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) return static_cast<float>(mean + stddev * (u * std::sqrt(-2.0 * std::log(s) / s)));
    }
}

std::uint32_t Random::below(std::uint32_t bound) {
    if (bound == 0) throw std::invalid_argument("Random::below: the bound must be at least 1");
    // 2^32 mod bound: rejecting the draws below it leaves a multiple of bound values, equally likely.
    const std::uint32_t threshold = (0u - bound) % bound;
    for (;;) {
        const std::uint32_t r = next_u32();
        if (r >= threshold) return r % bound;
    }
}

}  // namespace bps::train
