#include "engine/tensor/tensor_arena.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "engine/cl/error.h"

namespace bps {

namespace {
constexpr std::size_t alignment_elements = 16;  // 64 bytes: room for float16 vector loads

std::string largest_tensors(const TensorPlan& plan) {
    std::vector<TensorId> ids(plan.size());
    for (TensorId id = 0; id < ids.size(); ++id) ids[id] = id;
    // Stable: among equal sizes the first declared (a weight before its gradient) is named.
    std::stable_sort(ids.begin(), ids.end(),
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
std::string gib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return text;
}

void require_fits(const cl::DeviceInfo& device, const TensorPlan& plan) {
    const std::uint64_t bytes = plan.total_bytes();
    const std::string needs = "the network needs " + gib(bytes) + " of device memory";
    const std::string advice =
        "; use a smaller batch or smaller layers (largest tensors: " + largest_tensors(plan) + ")";
    // Kernels take element offsets as int.
    if (plan.total_elements() > static_cast<std::size_t>(INT_MAX))
        throw DeviceMemoryError(needs + ", more than the " + gib(std::uint64_t(INT_MAX) * sizeof(float)) +
                                " the engine's kernels can address" + advice);
    if (device.global_memory_bytes != 0 && bytes > device.global_memory_bytes)
        throw DeviceMemoryError(needs + ", but " + device.name + " has " + gib(device.global_memory_bytes) + advice);
    if (device.max_allocation_bytes != 0 && bytes > device.max_allocation_bytes)
        throw DeviceMemoryError(needs + " in one block, but " + device.name + " allows at most " +
                                gib(device.max_allocation_bytes) + " per block" + advice);
}
}  // namespace

TensorId TensorPlan::add(std::string name, const Shape& shape) {
    require_valid(shape, "tensor '" + name + "'");
    const std::size_t offset = total_;
    entries_.push_back({std::move(name), shape, offset});
    total_ += (shape.count() + alignment_elements - 1) / alignment_elements * alignment_elements;
    return entries_.size() - 1;
}

TensorArena::TensorArena(const cl::Context& context, const cl::Queue& queue, TensorPlan plan) : plan_(std::move(plan)) {
    require_fits(context.device(), plan_);
    const std::size_t bytes = std::max<std::size_t>(plan_.total_bytes(), sizeof(float));
    try {
        buffer_ = std::make_unique<cl::Buffer>(context, bytes);
        const float zero = 0.0f;
        cl::check(clEnqueueFillBuffer(queue.get(), buffer_->get(), &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
                  "clEnqueueFillBuffer", "the model's tensor memory");
        queue.finish();
    } catch (const cl::ClError& error) {
        throw cl::ClError(error.call(), error.status(),
                          "the model's tensors: " + std::to_string(bytes >> 20) + " MiB on " + context.device().name +
                              ", largest " + largest_tensors(plan_));
    }
}

Tensor TensorArena::operator[](TensorId id) const {
    return Tensor{buffer_->get(), plan_.offset(id), plan_.shape(id)};
}

}  // namespace bps
