#include "tensor/tensor_arena.h"

#include <algorithm>
#include <stdexcept>

#include "cl/error.h"

namespace bps {

namespace {
constexpr std::size_t alignment_elements = 16;  // 64 bytes: room for float16 vector loads

std::string largest_tensors(const TensorPlan& plan) {
    std::vector<TensorId> ids(plan.size());
    for (TensorId id = 0; id < ids.size(); ++id) ids[id] = id;
    std::sort(ids.begin(), ids.end(),
              [&](TensorId a, TensorId b) { return plan.shape(a).count() > plan.shape(b).count(); });
    std::string text;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, ids.size()); ++i) {
        if (!text.empty()) text += ", ";
        text += plan.name(ids[i]);
        text += " (";
        text += plan.shape(ids[i]).to_string();
        text += ')';
    }
    return text;
}
}  // namespace

TensorId TensorPlan::add(std::string name, const Shape& shape) {
    require_valid(shape, "tensor '" + name + "'");
    const std::size_t offset = total_;
    entries_.push_back({std::move(name), shape, offset});
    total_ += (shape.count() + alignment_elements - 1) / alignment_elements * alignment_elements;
    return entries_.size() - 1;
}

TensorArena::TensorArena(const cl::Context& context, const cl::Queue& queue, TensorPlan plan)
    : plan_(std::move(plan)) {
    const std::size_t bytes = std::max<std::size_t>(plan_.total_bytes(), sizeof(float));
    try {
        buffer_ = std::make_unique<cl::Buffer>(context, bytes);
        const float zero = 0.0f;
        cl::check(clEnqueueFillBuffer(queue.get(), buffer_->get(), &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
                  "clEnqueueFillBuffer", "the model's tensor memory");
        queue.finish();
    } catch (const cl::ClError& error) {
        throw cl::ClError(error.call(), error.status(),
                          "the model's tensors: " + std::to_string(bytes >> 20) + " MiB on " +
                              context.device().name + ", largest " + largest_tensors(plan_));
    }
}

Tensor TensorArena::operator[](TensorId id) const {
    return Tensor{buffer_->get(), plan_.offset(id), plan_.shape(id)};
}

}  // namespace bps
