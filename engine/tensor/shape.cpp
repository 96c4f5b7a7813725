#include "engine/tensor/shape.h"

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

std::string Shape::sample_text() const {
    std::string text = "(";
    text += std::to_string(c);
    if (h != 1 || w != 1) {
        text += ", ";
        text += std::to_string(h);
        text += ", ";
        text += std::to_string(w);
    }
    return text + ")";
}

void require_valid(const Shape& shape, const std::string& what) {
    if (shape.n < 1 || shape.c < 1 || shape.h < 1 || shape.w < 1)
        throw std::invalid_argument(what + " has an empty or negative dimension: " + shape.to_string());
}

}  // namespace bps
