#pragma once
// A random generator that gives the same numbers for the same seed with every compiler and standard
// library (the std:: distributions are implementation-defined), so initial weights and dataset shuffles
// are reproducible everywhere: SplitMix64 expands the seed, PCG32 (XSH-RR) draws.
#include <cstdint>

namespace bps::train {

// Steele, Lea and Flood's SplitMix64 (as in Vigna's splitmix64.c): spreads one 64-bit seed over a
// larger state, so nearby seeds (0, 1, 2...) start unrelated streams.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();

private:
    std::uint64_t state_;
};

// O'Neill's PCG32 as pcg32_srandom_r / pcg32_random_r of pcg-c-basic: `initstate` and `initseq`
// (stream) as there, so the published test vector can be checked.
class Pcg32 {
public:
    Pcg32(std::uint64_t initstate, std::uint64_t initseq);
    std::uint32_t next();

private:
    std::uint64_t state_ = 0;
    std::uint64_t increment_ = 0;
};

class Random {
public:
    explicit Random(std::uint64_t seed);
    std::uint32_t next_u32();
    float uniform();                       // [0, 1), a multiple of 2^-24
    float uniform(float low, float high);  // [low, high)
    // Marsaglia's polar method in double; the last bit of std::log may differ between C libraries, which
    // the rounding to float hides in all but extremely rare cases.
    float normal(float mean, float stddev);
    // Unbiased integer in [0, bound), by rejection as pcg32_boundedrand_r. bound must be at least 1.
    std::uint32_t below(std::uint32_t bound);

private:
    double open_symmetric();  // (-1, 1) with 53-bit resolution
    Pcg32 generator_;
};

}  // namespace bps::train
