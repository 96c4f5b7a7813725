#pragma once
// What every op needs to run on one device: the context, the in-order queue, and the engine's
// programs (built on first use, through the kernel cache when one is given). Ops enqueue and
// return; nothing here waits on the device except the explicit read/finish calls.
#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cl/context.h"
#include "engine/cl/device.h"
#include "engine/cl/program.h"
#include "engine/tensor/tensor.h"

namespace bps::cl {
class KernelCache;
}

namespace bps::ops {

class Runtime {
public:
    explicit Runtime(const cl::DeviceInfo& device, cl::KernelCache* cache = nullptr);
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    const cl::Context& context() const noexcept { return context_; }
    const cl::Queue& queue() const noexcept { return queue_; }
    const cl::DeviceInfo& device() const noexcept { return context_.device(); }

    // Kernel `kernel` of kernels/<program>.cl, built once per runtime.
    cl::Kernel& kernel(std::string_view program, std::string_view kernel);

    // Builds every engine program now rather than on first use, calling `built(done, total)`
    // after each, so a caller can show "building kernels 3/11" on a cold cache.
    void build_programs(const std::function<void(std::size_t done, std::size_t total)>& built);
    // What went wrong with kernel cache entries of the programs built so far (Program::cache_note),
    // for the learner to read; empty when nothing did.
    std::vector<std::string> cache_notes() const;

    // Sets the arguments in order and enqueues `items` work-items (1-D). A Tensor argument
    // expands to two kernel arguments: the buffer and its element offset (int).
    template <typename... Args>
    void run(std::string_view program, std::string_view kernel_name, std::size_t items, const Args&... args) {
        cl::Kernel& k = kernel(program, kernel_name);
        set_arguments(k, args...);
        k.run(queue_, items, group_size(k));
        ++launches_.kernels;
    }

    // A 1-D launch of a kernel whose arguments are set, in groups of `local` (reductions).
    void run_in_groups(cl::Kernel& k, std::size_t items, std::size_t local) {
        k.run(queue_, items, local);
        ++launches_.kernels;
    }

    // Sets a kernel's arguments in order, a Tensor as buffer and offset: for ops that launch
    // with their own work-group size (reductions).
    template <typename... Args>
    static void set_arguments(cl::Kernel& k, const Args&... args) {
        cl_uint index = 0;
        (set(k, index, args), ...);
    }

    // The same over a 3-D range of at least x * y * z work-items, for kernels over images (the
    // column in dimension 0 needs no division to find): the kernel returns early for the
    // work-items past x, y or z (see launch_3d).
    template <typename... Args>
    void run_3d(std::string_view program, std::string_view kernel_name, std::size_t x, std::size_t y, std::size_t z,
                const Args&... args) {
        cl::Kernel& k = kernel(program, kernel_name);
        set_arguments(k, args...);
        launch_3d(k, x, y, z);
        ++launches_.kernels;
    }

    // The same in groups[d] work-groups of local[d] work-items (see cl::Kernel::run_groups).
    template <typename... Args>
    void run_groups(std::string_view program, std::string_view kernel_name, const std::array<std::size_t, 3>& groups,
                    const std::array<std::size_t, 3>& local, const Args&... args) {
        cl::Kernel& k = kernel(program, kernel_name);
        set_arguments(k, args...);
        k.run_groups(queue_, groups, local);
        ++launches_.kernels;
    }

    // What this runtime has enqueued since its creation: the engine's own kernels, and the GEMMs
    // (on a GPU CLBlast enqueues one to four kernels for each; on a CPU each is one own kernel of
    // kernels/gemm.cl). On drivers that spend microseconds of host time per enqueue, the count per
    // step is what a small batch costs (`backprop bench` reports it).
    struct Launches {
        std::size_t kernels = 0;
        std::size_t gemms = 0;
    };
    Launches launches() const noexcept { return launches_; }
    void count_gemm() noexcept { ++launches_.gemms; }

    // Blocking copies between host memory and a tensor; the sizes must match the shape.
    void write(const Tensor& tensor, std::span<const float> values);
    std::vector<float> read(const Tensor& tensor);
    void write_ints(const Tensor& tensor, std::span<const int> values);
    std::vector<int> read_ints(const Tensor& tensor);
    void finish() const { queue_.finish(); }

private:
    static void set(cl::Kernel& k, cl_uint& index, const Tensor& tensor) {
        k.arg(index++, tensor.buffer);
        k.arg(index++, static_cast<int>(tensor.offset));
    }
    template <typename T>
    static void set(cl::Kernel& k, cl_uint& index, const T& value) {
        k.arg(index++, value);
    }
    const cl::Program& program(std::string_view name);
    void launch_3d(cl::Kernel& k, std::size_t x, std::size_t y, std::size_t z);
    // Work-items per group for run and run_3d: the largest power of two up to work_group_size_
    // that kernel k allows.
    std::size_t group_size(const cl::Kernel& k) const;

    cl::Context context_;
    cl::Queue queue_;
    cl::KernelCache* cache_;
    std::size_t work_group_size_;
    Launches launches_{};
    std::map<std::string, std::unique_ptr<cl::Program>, std::less<>> programs_;
    std::map<std::string, std::unique_ptr<cl::Kernel>, std::less<>> kernels_;
};

// How an op spreads its work over work-items: one per element suits GPUs; one per row or plane,
// looping over it in memory order, suits CPUs (PoCL runs each work-item's loop as plain code, and
// measured several times faster so). automatic picks by the device's kind.
enum class WorkSpread { automatic, per_element, per_plane };
inline WorkSpread resolved_spread(const Runtime& runtime, WorkSpread spread) {
    if (spread != WorkSpread::automatic) return spread;
    return runtime.device().kind == device::DeviceKind::Cpu ? WorkSpread::per_plane : WorkSpread::per_element;
}

// Whether a backward op overwrites its gradient output or adds to it (a tensor read by several
// layers receives the sum of their gradients).
enum class GradWrite { overwrite, accumulate };

}  // namespace bps::ops
