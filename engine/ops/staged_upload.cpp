#include "engine/ops/staged_upload.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/cl/error.h"

namespace bps::ops {

namespace {
// Waits for a slot's last write; a failed write is reported now, before its memory is reused.
void finish_write(cl_event event, std::string_view what) {
    const cl_int status = clWaitForEvents(1, &event);
    if (status != CL_SUCCESS) cl::check(status, "clWaitForEvents", "the previous upload of " + std::string(what));
}
}  // namespace

StagedUpload::~StagedUpload() {
    for (Slot& slot : slots_)
        if (slot.event) {
            cl_event event = slot.event.get();
            clWaitForEvents(1, &event);  // errors were or will be reported by the queue's next user
        }
}

void StagedUpload::write(Runtime& runtime, const Tensor& tensor, std::span<const float> values, std::string_view what) {
    write_bytes(runtime, tensor, values.data(), values.size(), sizeof(float), what);
}

void StagedUpload::write_ints(Runtime& runtime, const Tensor& tensor, std::span<const int> values,
                              std::string_view what) {
    write_bytes(runtime, tensor, values.data(), values.size(), sizeof(int), what);
}

void StagedUpload::write_bytes(Runtime& runtime, const Tensor& tensor, const void* data, std::size_t elements,
                               std::size_t element_size, std::string_view what) {
    static_assert(sizeof(int) == sizeof(float), "tensors hold 4-byte elements");
    if (elements != tensor.count())
        throw std::invalid_argument("upload of " + std::string(what) + ": " + std::to_string(elements) +
                                    " values for a " + tensor.shape.to_string() + " tensor");
    if (elements == 0) return;
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % slots_.size();
    if (slot.event) {
        finish_write(slot.event.get(), what);
        slot.event = {};
    }
    const std::size_t bytes = elements * element_size;
    slot.bytes.resize(bytes);
    std::memcpy(slot.bytes.data(), data, bytes);
    cl_event event = nullptr;
    // The message is built only on failure: this runs at every training step.
    const cl_int status =
        clEnqueueWriteBuffer(runtime.queue().get(), tensor.buffer, CL_FALSE, tensor.offset * sizeof(float), bytes,
                             slot.bytes.data(), 0, nullptr, &event);
    if (status != CL_SUCCESS)
        cl::check(status, "clEnqueueWriteBuffer", "upload of " + std::string(what) + " " + tensor.shape.to_string());
    slot.event = cl::Handle<cl_event, clRetainEvent, clReleaseEvent>(event);
}

}  // namespace bps::ops
