#include "engine/session/worker/device_training_set.h"

#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/cl/error.h"
#include "engine/ops/gather.h"

namespace bps::session {

namespace {
Shape set_shape_of(const datasets::Dataset& set) {
    return Shape{static_cast<int>(set.size()), set.shape.channels, set.shape.height, set.shape.width};
}

// The images, the labels and room for an epoch's order (a sample number each).
std::size_t bytes_of(const datasets::Dataset& set) {
    return (set.images.size() + set.labels.size()) * sizeof(float) + set.size() * sizeof(int);
}

bool out_of_memory(cl_int status) {
    return status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
           status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE;
}
}  // namespace

bool DeviceTrainingSet::wanted(const cl::DeviceInfo& device, const datasets::Dataset& set, DataPlacement placement) {
    if (placement == DataPlacement::host || set.size() == 0) return false;
    // The gather kernel indexes values with int; a Shape counts samples with int.
    if (set.images.size() > std::size_t(INT_MAX) || set.size() > std::size_t(INT_MAX)) return false;
    if (set.images.size() * sizeof(float) > device.max_allocation_bytes) return false;
    if (placement == DataPlacement::device) return true;
    return device.kind != device::DeviceKind::Cpu && bytes_of(set) <= device.global_memory_bytes / 4;
}

std::unique_ptr<DeviceTrainingSet> DeviceTrainingSet::upload(ops::Runtime& runtime, const datasets::Dataset& set,
                                                             int batch_size, DataPlacement placement) {
    if (!wanted(runtime.device(), set, placement)) return nullptr;
    try {
        return std::unique_ptr<DeviceTrainingSet>(new DeviceTrainingSet(runtime, set, batch_size));
    } catch (const cl::ClError& error) {
        if (out_of_memory(error.status())) return nullptr;  // the host assembles the batches instead
        throw;
    }
}

DeviceTrainingSet::DeviceTrainingSet(ops::Runtime& runtime, const datasets::Dataset& set, int batch_size)
    : runtime_(runtime),
      set_shape_(set_shape_of(set)),
      batch_size_(batch_size),
      images_(runtime.context(), set.images.size() * sizeof(float), CL_MEM_READ_ONLY),
      labels_(runtime.context(), set.labels.size() * sizeof(std::int32_t), CL_MEM_READ_ONLY),
      // An epoch's order names each sample at most once: room for the whole set.
      order_(runtime.context(), set.size() * sizeof(int), CL_MEM_READ_ONLY) {
    static_assert(sizeof(std::int32_t) == sizeof(float));
    images_.write(runtime.queue(), set.images.data(), set.images.size() * sizeof(float));
    labels_.write(runtime.queue(), set.labels.data(), set.labels.size() * sizeof(std::int32_t));
}

void DeviceTrainingSet::load_order(std::span<const std::size_t> order) {
    if (order.empty() || order.size() > static_cast<std::size_t>(set_shape_.n))
        throw std::invalid_argument("an epoch of " + std::to_string(order.size()) + " samples for a training set of " +
                                    std::to_string(set_shape_.n));
    // Copied again into the upload's staging buffer, so a local vector does: once an epoch.
    std::vector<int> values(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] >= static_cast<std::size_t>(set_shape_.n))
            throw std::out_of_range("sample " + std::to_string(order[i]) + " of a training set of " +
                                    std::to_string(set_shape_.n));
        values[i] = static_cast<int>(order[i]);
    }
    const int count = static_cast<int>(order.size());
    // The in-order queue runs this write after the gathers of the previous epoch's order.
    order_upload_.write_ints(runtime_, Tensor{order_.get(), 0, Shape{count, 1, 1, 1}}, values,
                             "the epoch's sample order");
    order_size_ = order.size();
}

void DeviceTrainingSet::load_batch(std::size_t first, std::size_t count, model::Network& network) {
    if (count == 0 || count > static_cast<std::size_t>(batch_size_))
        throw std::invalid_argument("a batch of " + std::to_string(count) +
                                    " samples for a training set kept for batches of " + std::to_string(batch_size_));
    if (first > order_size_ || count > order_size_ - first)
        throw std::out_of_range("samples " + std::to_string(first) + " to " + std::to_string(first + count - 1) +
                                " of an epoch of " + std::to_string(order_size_));
    const int n = static_cast<int>(count);
    const Tensor indices{order_.get(), first, Shape{n, 1, 1, 1}};
    ops::gather_samples(runtime_, Tensor{images_.get(), 0, set_shape_},
                        Tensor{labels_.get(), 0, Shape{set_shape_.n, 1, 1, 1}}, indices, network.input_batch(n),
                        network.labels_batch(n));
}

}  // namespace bps::session
