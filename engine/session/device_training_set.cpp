#include "engine/session/device_training_set.h"

#include <climits>
#include <stdexcept>
#include <string>

#include "engine/cl/error.h"
#include "engine/ops/gather.h"

namespace bps::session {

namespace {
Shape set_shape_of(const datasets::Dataset& set) {
    return Shape{static_cast<int>(set.size()), set.shape.channels, set.shape.height, set.shape.width};
}

std::size_t bytes_of(const datasets::Dataset& set) {
    return (set.images.size() + set.labels.size()) * sizeof(float);
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
    return device.kind != cl::DeviceKind::Cpu && bytes_of(set) <= device.global_memory_bytes / 4;
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
      indices_(runtime.context(), static_cast<std::size_t>(batch_size) * sizeof(int), CL_MEM_READ_ONLY) {
    static_assert(sizeof(std::int32_t) == sizeof(float));
    images_.write(runtime.queue(), set.images.data(), set.images.size() * sizeof(float));
    labels_.write(runtime.queue(), set.labels.data(), set.labels.size() * sizeof(std::int32_t));
}

void DeviceTrainingSet::load_batch(std::span<const std::size_t> indices, model::Network& network) {
    const int count = static_cast<int>(indices.size());
    if (indices.empty() || count > batch_size_)
        throw std::invalid_argument("a batch of " + std::to_string(indices.size()) +
                                    " samples for a training set kept for batches of " + std::to_string(batch_size_));
    index_values_.resize(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= static_cast<std::size_t>(set_shape_.n))
            throw std::out_of_range("sample " + std::to_string(indices[i]) + " of a training set of " +
                                    std::to_string(set_shape_.n));
        index_values_[i] = static_cast<int>(indices[i]);
    }
    const Tensor index_tensor{indices_.get(), 0, Shape{count, 1, 1, 1}};
    index_upload_.write_ints(runtime_, index_tensor, index_values_, "the batch's sample numbers");
    ops::gather_samples(runtime_, Tensor{images_.get(), 0, set_shape_},
                        Tensor{labels_.get(), 0, Shape{set_shape_.n, 1, 1, 1}}, index_tensor,
                        network.input_batch(count), network.labels_batch(count));
}

}  // namespace bps::session
