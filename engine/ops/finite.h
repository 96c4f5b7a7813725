#pragma once
// Counting NaN and infinite values on the device, so that a network's parameters can be checked
// without reading them back: one launch per tensor into an int32 counter, then one small read.
//
// Exact against engine/reference/finite.h: the counts are integers added atomically.
#include "engine/ops/runtime.h"

namespace bps::ops {

// count[0] += how many of `values` are NaN or infinite. `count` is one int32 element (it sits in
// the float arena like any int tensor); clear it with Runtime::write_ints before the first call.
void count_non_finite(Runtime& runtime, const Tensor& values, const Tensor& count);

}  // namespace bps::ops
