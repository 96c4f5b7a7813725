#pragma once
// A program built for one device (from the kernel cache when it holds a valid binary), and
// the kernels taken from it.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "engine/cl/context.h"
#include "engine/cl/handle.h"
#include "engine/cl/opencl.h"

namespace bps::cl {

class KernelCache;

// Whether a program built from source is written to the kernel cache (see ops::CacheWrites).
enum class CacheWrite { store, skip };

class Program {
public:
    // Builds `source` with `options` for the context's device. With a cache, a valid cached
    // binary is used and a binary built from source is stored. A compile error throws ClError
    // carrying the compiler's build log. `name` (e.g. "elementwise") appears in errors. With
    // CacheWrite::skip a cached binary is still used, but one built from source is not stored.
    Program(const Context& context, std::string name, std::string_view source, std::string options = {},
            KernelCache* cache = nullptr, CacheWrite write = CacheWrite::store);
    cl_program get() const noexcept { return program_.get(); }
    const std::string& name() const noexcept { return name_; }
    bool from_cache() const noexcept { return from_cache_; }
    // What went wrong with the cache entry, for the learner ("the kernel cache entry FILE held
    // another program ..."); empty when nothing did.
    const std::string& cache_note() const noexcept { return cache_note_; }
    cl_device_id device() const noexcept { return device_; }

private:
    std::string name_;
    cl_device_id device_;
    bool from_cache_ = false;
    std::string cache_note_;
    Handle<cl_program, clRetainProgram, clReleaseProgram> program_;
};

class Kernel {
public:
    Kernel(const Program& program, const std::string& name);
    cl_kernel get() const noexcept { return kernel_.get(); }
    const std::string& name() const noexcept { return name_; }
    // The most work-items a group of this kernel may have on its device (its registers and
    // local memory can make this smaller than the device's limit); asked once, at creation.
    std::size_t max_group_size() const noexcept { return max_group_size_; }

    template <typename T>
    Kernel& arg(cl_uint index, const T& value) {
        set_arg(index, sizeof(T), &value);
        return *this;
    }
    Kernel& arg(cl_uint index, const Buffer& buffer) {
        cl_mem mem = buffer.get();
        set_arg(index, sizeof(cl_mem), &mem);
        return *this;
    }

    // One-dimensional launch of `items` work-items; the global size is rounded up to a whole
    // number of work-groups (kernels check their bound). local 0 lets the driver choose.
    void run(const Queue& queue, std::size_t items, std::size_t local = 0) const;
    // Three-dimensional launch of groups[d] work-groups of exactly local[d] work-items each: for
    // kernels written for one group shape (reqd_work_group_size), which check their own bounds.
    void run_groups(const Queue& queue, const std::array<std::size_t, 3>& groups,
                    const std::array<std::size_t, 3>& local) const;

private:
    void set_arg(cl_uint index, std::size_t size, const void* value);
    std::string name_;
    std::size_t max_group_size_ = 0;
    Handle<cl_kernel, clRetainKernel, clReleaseKernel> kernel_;
};

}  // namespace bps::cl
