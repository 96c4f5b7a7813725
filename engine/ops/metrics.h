#pragma once
// Epoch metrics summed on the device, and a read-back that never stalls the queue: a training
// loop enqueues batch after batch and only looks at the totals when the read has arrived.
//
// Tolerance against a host sum (normwise relative error): 1e-6 for a few thousand samples.
// Each of up to 64 lanes sums a strided share, then one lane adds the partial sums in a fixed
// order: rounding grows with the ~n/64 + 64 terms of the longest chain, not with n, and the
// result is the same on every run.
#include <vector>

#include "engine/cl/handle.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

// totals (2 values): totals[0] += sum(sample_loss), totals[1] += sum(sample_correct), in one
// small work-group reduction. sample_correct may be an empty Tensor (buffer nullptr), e.g. for
// mean squared error: totals[1] is then left as it is.
void accumulate_metrics(Runtime& runtime, const Tensor& sample_loss, const Tensor& sample_correct,
                        const Tensor& totals);
// totals = 0
void clear_metrics(Runtime& runtime, const Tensor& totals);

// Reads a small tensor back without blocking: start() enqueues a non-blocking read into memory
// owned by this object (and flushes, so the read is submitted even if nothing else is enqueued);
// ready() polls its event and never blocks; wait() blocks. An OpenCL failure of the read
// (negative execution status) throws cl::ClError. A pending read is waited for before its
// memory is reused or freed (start() again, assignment, destruction).
class AsyncRead {
public:
    AsyncRead() = default;
    AsyncRead(const AsyncRead&) = delete;
    AsyncRead& operator=(const AsyncRead&) = delete;
    AsyncRead(AsyncRead&& other) noexcept;
    AsyncRead& operator=(AsyncRead&& other) noexcept;
    ~AsyncRead();

    void start(Runtime& runtime, const Tensor& tensor);
    // False before start(); true once the read has completed.
    bool ready() const;
    // Throws std::logic_error when nothing was started.
    const std::vector<float>& wait();
    // Throws std::logic_error unless ready().
    const std::vector<float>& values() const;

private:
    void wait_quietly() noexcept;  // for destruction and reuse: errors are reported by wait()/ready()
    std::vector<float> values_;
    cl::Handle<cl_event, clRetainEvent, clReleaseEvent> event_;
};

}  // namespace bps::ops
