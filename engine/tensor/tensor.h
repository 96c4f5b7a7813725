#pragma once
// A view of float32 (or int32) elements inside a device buffer: the buffer, an element offset
// and a shape. Tensors do not own memory; a TensorArena owns one buffer per model and hands
// out views, so a training step never allocates.
#include <cstddef>

#include "engine/cl/opencl.h"
#include "engine/tensor/shape.h"

namespace bps {

struct Tensor {
    cl_mem buffer = nullptr;
    std::size_t offset = 0;  // in elements (4 bytes each) from the start of `buffer`
    Shape shape;

    std::size_t count() const noexcept { return shape.count(); }
    std::size_t bytes() const noexcept { return count() * sizeof(float); }
    // The same memory seen with another shape of the same element count (Flatten, reshape).
    Tensor reshaped(const Shape& other) const;
};

}  // namespace bps
