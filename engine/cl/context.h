#pragma once
// A context and an in-order command queue on one device: what a training session owns.
#include <cstddef>
#include <string>

#include "engine/cl/device.h"
#include "engine/cl/handle.h"
#include "engine/cl/opencl.h"

namespace bps::cl {

class Context {
public:
    explicit Context(const DeviceInfo& device);
    cl_context get() const noexcept { return context_.get(); }
    const DeviceInfo& device() const noexcept { return device_; }

private:
    DeviceInfo device_;
    Handle<cl_context, clRetainContext, clReleaseContext> context_;
};

class Queue {
public:
    explicit Queue(const Context& context);
    cl_command_queue get() const noexcept { return queue_.get(); }
    void finish() const;  // waits for everything enqueued

private:
    Handle<cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue> queue_;
};

// Device memory of a fixed size; errors name the size so out-of-memory reports say how much.
class Buffer {
public:
    Buffer(const Context& context, std::size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE);
    cl_mem get() const noexcept { return buffer_.get(); }
    std::size_t bytes() const noexcept { return bytes_; }
    void write(const Queue& queue, const void* data, std::size_t bytes, std::size_t offset = 0) const;  // blocking
    void read(const Queue& queue, void* data, std::size_t bytes, std::size_t offset = 0) const;         // blocking

private:
    std::size_t bytes_;
    Handle<cl_mem, clRetainMemObject, clReleaseMemObject> buffer_;
};

}  // namespace bps::cl
