#pragma once
// Size arithmetic that cannot wrap: a product of counts read from a file or typed by a learner
// (image sizes, filters, units, a weights file's dims) saturates at the largest std::uint64_t
// instead of wrapping to a small number, so every limit it is compared with still refuses it.
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace bps {

// The most values one tensor may hold: devices index tensors with int.
inline constexpr std::uint64_t max_tensor_values = INT_MAX;

// The product of non-negative counts (any integer range), saturating.
template <typename Counts>
constexpr std::uint64_t saturating_product(const Counts& factors) noexcept {
    constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t product = 1;
    for (const auto count : factors) {
        const auto factor = static_cast<std::uint64_t>(count);
        if (factor == 0) return 0;
        if (product > most / factor) return most;
        product *= factor;
    }
    return product;
}

constexpr std::uint64_t saturating_product(std::initializer_list<std::uint64_t> factors) noexcept {
    return saturating_product<std::initializer_list<std::uint64_t>>(factors);
}

constexpr std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) noexcept {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

}  // namespace bps
