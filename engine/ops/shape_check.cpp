#include "engine/ops/shape_check.h"

#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
std::string mismatch(const Tensor& tensor, const Shape& expected, std::string_view op, std::string_view what) {
    return std::string(op) + ": " + std::string(what) + " is " + tensor.shape.to_string() + ", expected " +
           expected.to_string();
}
}  // namespace

void require_shape(const Tensor& tensor, const Shape& expected, std::string_view op, std::string_view what) {
    if (tensor.shape != expected) throw std::invalid_argument(mismatch(tensor, expected, op, what));
}

void require_shape(const Tensor& tensor, const Shape& expected, std::string_view op, std::string_view what,
                   const Shape& input) {
    if (tensor.shape != expected)
        throw std::invalid_argument(mismatch(tensor, expected, op, what) + " for a " + input.to_string() + " input");
}

}  // namespace bps::ops
