#pragma once
// Memory planned once per model: every tensor is declared first (TensorPlan), then one device
// buffer holds them all (TensorArena). Nothing is allocated while training.
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/cl/context.h"
#include "engine/tensor/tensor.h"

namespace bps {

using TensorId = std::size_t;

// The planned tensors do not fit the device: the message gives the size needed, the device's
// limit and the largest tensors, in words a learner can act on.
class DeviceMemoryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class TensorPlan {
public:
    // Declares a tensor; `name` (e.g. "conv1.weight") appears in out-of-memory errors.
    TensorId add(std::string name, const Shape& shape);
    std::size_t size() const noexcept { return entries_.size(); }
    const std::string& name(TensorId id) const { return entries_.at(id).name; }
    const Shape& shape(TensorId id) const { return entries_.at(id).shape; }
    // Element offset of each tensor; every tensor starts on a 64-byte boundary.
    std::size_t offset(TensorId id) const { return entries_.at(id).offset; }
    std::size_t total_elements() const noexcept { return total_; }
    std::size_t total_bytes() const noexcept { return total_ * sizeof(float); }

private:
    struct Entry {
        std::string name;
        Shape shape;
        std::size_t offset;
    };
    std::vector<Entry> entries_;
    std::size_t total_ = 0;
};

class TensorArena {
public:
    // Allocates the plan's buffer (zero-filled, so no tensor starts with garbage). A plan larger
    // than the device allows in one buffer, than its memory, or than kernels can index with int
    // offsets throws DeviceMemoryError before anything is allocated; a failed allocation throws
    // cl::ClError naming the total size and the largest tensors.
    TensorArena(const cl::Context& context, const cl::Queue& queue, TensorPlan plan);
    Tensor operator[](TensorId id) const;
    std::size_t bytes() const noexcept { return plan_.total_bytes(); }

private:
    TensorPlan plan_;
    std::unique_ptr<cl::Buffer> buffer_;
};

}  // namespace bps
