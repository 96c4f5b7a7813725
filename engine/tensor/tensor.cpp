#include "engine/tensor/tensor.h"

#include <stdexcept>

namespace bps {

Tensor Tensor::reshaped(const Shape& other) const {
    if (other.count() != shape.count())
        throw std::invalid_argument("cannot view a " + shape.to_string() + " tensor as " + other.to_string() +
                                    ": element counts differ");
    return Tensor{buffer, offset, other};
}

}  // namespace bps
