#include "tensor/shape.h"

#include <stdexcept>

namespace bps {

std::string Shape::to_string() const {
    std::string text = std::to_string(n);
    for (int dim : {c, h, w}) {
        text += 'x';
        text += std::to_string(dim);
    }
    return text;
}

void require_valid(const Shape& shape, const std::string& what) {
    if (shape.n < 1 || shape.c < 1 || shape.h < 1 || shape.w < 1)
        throw std::invalid_argument(what + " has an empty or negative dimension: " + shape.to_string());
}

}  // namespace bps
