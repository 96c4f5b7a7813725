#pragma once
// Host-to-device copies that do not stop the host: each batch's values are copied into one of two
// host staging buffers and written with a non-blocking clEnqueueWriteBuffer. The host can then
// assemble the next batch while the device trains on this one, instead of waiting at every write
// for the queue to drain (an in-order queue runs a blocking write only after everything before it).
//
// A staging buffer is refilled only once its previous write has completed, so the host runs at
// most two uploads ahead of the device and memory stays bounded. Destruction waits for pending
// writes, whose source memory it owns.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "engine/cl/handle.h"
#include "engine/cl/opencl.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

class StagedUpload {
public:
    StagedUpload() = default;
    StagedUpload(const StagedUpload&) = delete;
    StagedUpload& operator=(const StagedUpload&) = delete;
    ~StagedUpload();

    // The values must fill the tensor (as Runtime::write). Throws cl::ClError naming `what` when
    // the enqueue fails or the slot's previous write ended in an error.
    void write(Runtime& runtime, const Tensor& tensor, std::span<const float> values, std::string_view what);
    void write_ints(Runtime& runtime, const Tensor& tensor, std::span<const int> values, std::string_view what);

private:
    struct Slot {
        std::vector<std::byte> bytes;
        cl::Handle<cl_event, clRetainEvent, clReleaseEvent> event;
    };
    void write_bytes(Runtime& runtime, const Tensor& tensor, const void* data, std::size_t elements,
                     std::size_t element_size, std::string_view what);
    std::array<Slot, 2> slots_;
    std::size_t next_ = 0;
};

}  // namespace bps::ops
