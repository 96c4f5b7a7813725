#include "engine/ops/metrics.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "engine/cl/error.h"
#include "engine/cl/fault_injection.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/metrics.cl), named once.
const KernelId accumulate_metrics_kernel{"metrics", "accumulate_metrics"};
const KernelId clear_metrics_kernel{"metrics", "clear_metrics"};

void require_totals(const Tensor& totals, const char* op) {
    if (totals.count() != 2)
        throw std::invalid_argument(std::string(op) + ": totals must hold 2 values, not " + totals.shape.to_string());
}

// CL_COMPLETE (0), a positive "still in progress" status, or a negative error that throws.
cl_int execution_status(cl_event event) {
    cl_int status = CL_COMPLETE;
    cl::check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr),
              "clGetEventInfo", "asynchronous read");
    if (status < 0) throw cl::ClError("clEnqueueReadBuffer", status, "asynchronous read");
    return status;
}
}  // namespace

void accumulate_metrics(Runtime& runtime, const Tensor& sample_loss, const Tensor& sample_correct,
                        const Tensor& totals) {
    require_totals(totals, "accumulate metrics");
    const bool has_correct = sample_correct.buffer != nullptr;
    if (has_correct && sample_correct.count() != sample_loss.count())
        throw std::invalid_argument("accumulate metrics: sample losses " + sample_loss.shape.to_string() +
                                    " and correct flags " + sample_correct.shape.to_string() + " differ in size");
    // Without correct flags the loss tensor stands in as a valid buffer argument the kernel never reads.
    const Tensor& correct = has_correct ? sample_correct : sample_loss;
    // One work-group: the global size of 1 is rounded up to a single group.
    runtime.run(accumulate_metrics_kernel, 1, static_cast<int>(sample_loss.count()), sample_loss, correct,
                static_cast<int>(has_correct), totals);
}

void clear_metrics(Runtime& runtime, const Tensor& totals) {
    require_totals(totals, "clear metrics");
    runtime.run(clear_metrics_kernel, 2, totals);
}

AsyncRead::AsyncRead(AsyncRead&& other) noexcept : values_(std::move(other.values_)), event_(std::move(other.event_)) {}

AsyncRead& AsyncRead::operator=(AsyncRead&& other) noexcept {
    if (this != &other) {
        wait_quietly();
        values_ = std::move(other.values_);
        event_ = std::move(other.event_);
    }
    return *this;
}

AsyncRead::~AsyncRead() {
    wait_quietly();
}

void AsyncRead::wait_quietly() noexcept {
    if (event_) {
        cl_event event = event_.get();
        clWaitForEvents(1, &event);
    }
}

void AsyncRead::start(Runtime& runtime, const Tensor& tensor) {
    wait_quietly();  // the previous read must not land in memory about to be resized
    event_ = {};
    values_.assign(tensor.count(), 0.0f);
    cl_event event = nullptr;
    cl_int status = cl::injected_fault(cl::FaultPoint::read);
    if (status == CL_SUCCESS)
        status = clEnqueueReadBuffer(runtime.queue().get(), tensor.buffer, CL_FALSE, tensor.offset * sizeof(float),
                                     tensor.bytes(), values_.data(), 0, nullptr, &event);
    cl::check(status, "clEnqueueReadBuffer", "asynchronous read of " + tensor.shape.to_string());
    event_ = cl::Handle<cl_event, clRetainEvent, clReleaseEvent>(event);
    // Some drivers hold enqueued commands until a flush; polling alone would then wait forever.
    cl::check(clFlush(runtime.queue().get()), "clFlush", "asynchronous read");
}

bool AsyncRead::ready() const {
    return event_ && execution_status(event_.get()) == CL_COMPLETE;
}

const std::vector<float>& AsyncRead::wait() {
    if (!event_) throw std::logic_error("AsyncRead::wait: no read was started");
    cl_event event = event_.get();
    const cl_int status = clWaitForEvents(1, &event);
    execution_status(event);  // a failed command throws with its own status
    cl::check(status, "clWaitForEvents", "asynchronous read");
    return values_;
}

const std::vector<float>& AsyncRead::values() const {
    if (!ready()) throw std::logic_error("AsyncRead::values: the read has not completed (call ready() or wait())");
    return values_;
}

}  // namespace bps::ops
