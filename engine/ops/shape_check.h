#pragma once
// The one way every op checks the tensors it was given against the shapes it needs, so that a
// wrong shape is refused with the same kind of message whichever op was called.
#include <string_view>

#include "engine/tensor/tensor.h"

namespace bps::ops {

// Throws std::invalid_argument "<op>: <what> is <shape>, expected <shape>" when `tensor` has
// another shape than `expected`. The strings are only built then: the check runs on every step.
void require_shape(const Tensor& tensor, const Shape& expected, std::string_view op, std::string_view what);
// The same, ending " for a <input> input" where the expected shape follows from an input's.
void require_shape(const Tensor& tensor, const Shape& expected, std::string_view op, std::string_view what,
                   const Shape& input);

}  // namespace bps::ops
