#pragma once
// The training images and labels kept on the device for a whole run, so a batch costs the host
// one gather kernel (ops/gather.h) instead of assembling and transferring every pixel. With a
// fast GPU and a small network the host copy is otherwise the bottleneck (docs/performance.md).
// The epoch's order goes to the device once, when the epoch starts: a write per batch cost a
// second enqueue per step, and at mlp's 0.1 ms steps on the H100 that is a twentieth of the step.
// The values are the host's, already normalised, so a run trains exactly as it would from host
// batches.
#include <cstddef>
#include <memory>
#include <span>

#include "datasets/dataset.h"
#include "engine/cl/context.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/ops/staged_upload.h"
#include "engine/session/job_events.h"

namespace bps::session {

class DeviceTrainingSet {
public:
    // The set on the runtime's device, or nullptr when `placement` keeps it on the host: a CPU
    // device (the copy would double the memory and save nothing), a set too large, or one
    // whose values a kernel cannot index. The upload blocks once; the caller shows progress.
    // Whether upload would keep the set on the device (before it tries to allocate).
    static bool wanted(const cl::DeviceInfo& device, const datasets::Dataset& set, DataPlacement placement);
    // Also nullptr when the device cannot allocate the memory after all.
    static std::unique_ptr<DeviceTrainingSet> upload(ops::Runtime& runtime, const datasets::Dataset& set,
                                                     int batch_size, DataPlacement placement);

    // The epoch's sample numbers, in training order, each below the set's size (checked here,
    // once); written without blocking the host. Replaces the previous epoch's order.
    void load_order(std::span<const std::size_t> order);
    // Fills the network's input and labels with the samples at positions [first, first + count)
    // of the loaded order (count at most the batch size), without blocking the host.
    void load_batch(std::size_t first, std::size_t count, model::Network& network);

    DeviceTrainingSet(const DeviceTrainingSet&) = delete;
    DeviceTrainingSet& operator=(const DeviceTrainingSet&) = delete;

private:
    DeviceTrainingSet(ops::Runtime& runtime, const datasets::Dataset& set, int batch_size);

    ops::Runtime& runtime_;
    Shape set_shape_;
    int batch_size_;
    cl::Buffer images_, labels_, order_;  // order_: room for set_shape_.n sample numbers
    std::size_t order_size_ = 0;          // the loaded epoch's samples
    ops::StagedUpload order_upload_;      // last: waits for its writes before the buffers go
};

}  // namespace bps::session
