#include "engine/cl/context.h"

#include <stdexcept>

#include "engine/cl/error.h"
#include "engine/cl/fault_injection.h"

namespace bps::cl {

Context::Context(const DeviceInfo& device) : device_(device) {
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(device.platform), 0};
    cl_int status = CL_SUCCESS;
    cl_context context = clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status);
    check(status, "clCreateContext", "device '" + device.name + "'");
    context_ = decltype(context_)(context);
}

Queue::Queue(const Context& context) {
    cl_int status = CL_SUCCESS;
    // clCreateCommandQueue is deprecated in 2.0 but is the 1.2 API we target.
    cl_command_queue queue = clCreateCommandQueue(context.get(), context.device().id, 0, &status);
    check(status, "clCreateCommandQueue", "device '" + context.device().name + "'");
    queue_ = decltype(queue_)(queue);
}

void Queue::finish() const {
    check(clFinish(queue_.get()), "clFinish");
}

namespace {
std::string describe_buffer(std::size_t bytes) {
    return "buffer of " + std::to_string(bytes) + " bytes";
}

void check_range(std::size_t buffer_bytes, std::size_t bytes, std::size_t offset, const char* what) {
    if (offset > buffer_bytes || bytes > buffer_bytes - offset)
        throw std::out_of_range(std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                                std::to_string(offset) + " does not fit a " + describe_buffer(buffer_bytes));
}
}  // namespace

Buffer::Buffer(const Context& context, std::size_t bytes, cl_mem_flags flags) : bytes_(bytes) {
    if (bytes == 0) throw std::invalid_argument("an OpenCL buffer cannot be empty (0 bytes requested)");
    cl_int status = injected_fault(FaultPoint::allocation);
    cl_mem buffer = status == CL_SUCCESS ? clCreateBuffer(context.get(), flags, bytes, nullptr, &status) : nullptr;
    check(status, "clCreateBuffer", describe_buffer(bytes) + " on '" + context.device().name + "'");
    buffer_ = decltype(buffer_)(buffer);
}

void Buffer::write(const Queue& queue, const void* data, std::size_t bytes, std::size_t offset) const {
    check_range(bytes_, bytes, offset, "a write");
    check(clEnqueueWriteBuffer(queue.get(), buffer_.get(), CL_TRUE, offset, bytes, data, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer", describe_buffer(bytes_));
}

void Buffer::read(const Queue& queue, void* data, std::size_t bytes, std::size_t offset) const {
    check_range(bytes_, bytes, offset, "a read");
    cl_int status = injected_fault(FaultPoint::read);
    if (status == CL_SUCCESS)
        status = clEnqueueReadBuffer(queue.get(), buffer_.get(), CL_TRUE, offset, bytes, data, 0, nullptr, nullptr);
    check(status, "clEnqueueReadBuffer", describe_buffer(bytes_));
}

}  // namespace bps::cl
