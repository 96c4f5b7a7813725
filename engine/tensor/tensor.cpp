#include "tensor/tensor.h"

#include <stdexcept>

namespace bps {

Tensor Tensor::reshaped(const Shape& other) const {
    if (other.count() != shape.count())
        throw std::invalid_argument("cannot view a " + shape.to_string() + " tensor as " + other.to_string() +
                                    ": element counts differ");
    return Tensor{buffer, offset, other};
}

Tensor Tensor::samples(int first, int samples) const {
    if (first < 0 || samples < 1 || first + samples > shape.n)
        throw std::out_of_range("samples " + std::to_string(first) + ".." + std::to_string(first + samples) +
                                " are outside a batch of " + std::to_string(shape.n));
    Shape part = shape;
    part.n = samples;
    return Tensor{buffer, offset + static_cast<std::size_t>(first) * shape.per_sample(), part};
}

}  // namespace bps
