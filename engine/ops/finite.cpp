#include "engine/ops/finite.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/finite.cl), named once.
const KernelId count_non_finite_kernel{"finite", "count_non_finite"};

// Enough work-items to fill a GPU's memory bandwidth; more would only add atomics when every value
// is bad. Each work-item loops over its share, so any tensor size fits.
constexpr std::size_t max_items = 16384;
}  // namespace

void count_non_finite(Runtime& runtime, const Tensor& values, const Tensor& count) {
    if (count.count() != 1)
        throw std::invalid_argument("count non-finite: the count must be one value, not " + count.shape.to_string());
    if (values.count() == 0) return;
    const std::size_t items = std::min(values.count(), max_items);
    runtime.run(count_non_finite_kernel, items, static_cast<int>(values.count()), values, count);
}

}  // namespace bps::ops
