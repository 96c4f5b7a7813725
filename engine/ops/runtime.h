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
#include "engine/ops/kernel_id.h"
#include "engine/tensor/tensor.h"

namespace bps::cl {
class KernelCache;
}

namespace bps::ops {

// Which of the programs a runtime builds from source it writes to the kernel cache. Asking PoCL
// for a program's binary makes it compile every kernel of the program for the binary: on two
// cores 4.1 of conv2d's 4.8 s, and most of the 8 s that the cnn's cold start took. PoCL keeps
// what it compiles in its own cache beside ours (cl/cache_location.h), so a start after one that
// skipped our entries is nearly as quick (the cnn's first batch 0.22 s, against 0.11 s from ours).
// So runtimes on the way to a first batch skip PoCL's binaries, and the builds ahead of need
// (the studio's warm-up, like `backprop cache warm`) store them, so that later starts skip even
// PoCL's compiles at first launch. Other drivers hand their binaries over at no cost.
enum class CacheWrites { all, skip_pocl_binaries };

class Runtime {
public:
    explicit Runtime(const cl::DeviceInfo& device, cl::KernelCache* cache = nullptr,
                     CacheWrites writes = CacheWrites::skip_pocl_binaries);
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    const cl::Context& context() const noexcept { return context_; }
    const cl::Queue& queue() const noexcept { return queue_; }
    const cl::DeviceInfo& device() const noexcept { return context_.device(); }
    // The tiles this runtime's own kernels are built with and launched by: the device's tuning
    // (device/kernel_tuning.h), given with the device.
    const device::KernelTuning& tuning() const noexcept { return context_.device().tuning; }

    // The kernel `id` names, created from its (already built) program on first use and kept:
    // a launch indexes a vector, with no name to look up.
    cl::Kernel& kernel(const KernelId& id) {
        if (id.index() < kernels_.size() && kernels_[id.index()]) return *kernels_[id.index()];
        return create_kernel(id);
    }
    // How many cl::Kernel objects this runtime has created: each kernel once, however often it runs.
    std::size_t kernels_created() const noexcept { return kernels_created_; }

    // Builds the programs this device uses (programs_for) now rather than on first use, calling
    // `built(done, total)` after each, so a caller can show "building kernels 3/11" on a cold
    // cache. One at a time:
    // building them on one thread per core measured slower on NVIDIA's driver (the H100's cold
    // start went from 3-5 s to 8 s), and PoCL compiles one program at a time whatever calls it.
    void build_programs(const std::function<void(std::size_t done, std::size_t total)>& built);
    // What went wrong with kernel cache entries of the programs built so far (Program::cache_note),
    // for the learner to read; empty when nothing did.
    std::vector<std::string> cache_notes() const;

    // Sets the arguments in order and enqueues `items` work-items (1-D). A Tensor argument
    // expands to two kernel arguments: the buffer and its element offset (int).
    template <typename... Args>
    void run(const KernelId& id, std::size_t items, const Args&... args) {
        cl::Kernel& k = kernel(id);
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
    void run_3d(const KernelId& id, std::size_t x, std::size_t y, std::size_t z, const Args&... args) {
        cl::Kernel& k = kernel(id);
        set_arguments(k, args...);
        launch_3d(k, x, y, z);
        ++launches_.kernels;
    }

    // The same in groups[d] work-groups of local[d] work-items (see cl::Kernel::run_groups).
    template <typename... Args>
    void run_groups(const KernelId& id, const std::array<std::size_t, 3>& groups,
                    const std::array<std::size_t, 3>& local, const Args&... args) {
        cl::Kernel& k = kernel(id);
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
    cl::Kernel& create_kernel(const KernelId& id);
    void launch_3d(cl::Kernel& k, std::size_t x, std::size_t y, std::size_t z);
    // Work-items per group for run and run_3d: the largest power of two up to work_group_size_
    // that kernel k allows.
    std::size_t group_size(const cl::Kernel& k) const;

    cl::Context context_;
    cl::Queue queue_;
    cl::KernelCache* cache_;
    cl::CacheWrite cache_write_;
    std::size_t work_group_size_;
    Launches launches_{};
    std::map<std::string, std::unique_ptr<cl::Program>, std::less<>> programs_;
    // Indexed by KernelId::index(); a null slot is a kernel not created yet.
    std::vector<std::unique_ptr<cl::Kernel>> kernels_;
    std::size_t kernels_created_ = 0;
};

// The programs of kernels/ that work on `device` launches, in kernels/ order, which a runtime's
// build_programs builds and the warm-up stores: every one, except gemm.cl where products go through
// CLBlast (GPUs, ops/gemm.h). On the H100 gemm.cl took 4.8 of the 8.2 s that all fourteen took.
std::vector<std::string_view> programs_for(const device::DeviceDescription& device);

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
