#pragma once
// Plain C++ reference for ops/finite.h.
#include <cmath>
#include <cstddef>
#include <span>

namespace bps::ref {

// How many of `values` are NaN or infinite.
template <typename T>
std::size_t count_non_finite(std::span<const T> values) {
    std::size_t count = 0;
    for (const T& value : values) count += std::isfinite(value) ? 0 : 1;
    return count;
}

// Compiled once, in float and double, by reference/instances.cpp; an includer calls those.
#define BPS_REF_FINITE_INSTANCES(prefix, T) prefix template std::size_t count_non_finite<T>(std::span<const T>);
BPS_REF_FINITE_INSTANCES(extern, float)
BPS_REF_FINITE_INSTANCES(extern, double)

}  // namespace bps::ref
