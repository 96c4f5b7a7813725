#include "engine/ops/runtime.h"

#include <algorithm>
#include <stdexcept>

#include "engine/cl/error.h"
#include "engine/cl/fault_injection.h"
#include "engine/ops/gemm.h"
#include "kernels/embedded_kernels.h"

namespace bps::ops {

namespace {
void require_elements(const Tensor& tensor, std::size_t elements, const char* what) {
    if (elements != tensor.count())
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(elements) + " values for a " +
                                    tensor.shape.to_string() + " tensor");
}
}  // namespace

Runtime::Runtime(const cl::DeviceInfo& device, cl::KernelCache* cache, CacheWrites writes)
    : context_(device),
      queue_(context_),
      cache_(cache),
      cache_write_(writes == CacheWrites::skip_pocl_binaries && device::is_pocl(device) ? cl::CacheWrite::skip
                                                                                        : cl::CacheWrite::store),
      // 64 work-items per group suits every vendor's SIMD width (32 or 64) and PoCL. GPUs get
      // 256: a GPU starts groups at a limited rate, and element-wise kernels over large tensors
      // in groups of 64 were bound by it (measured on NVIDIA: ReLU at a third of the memory
      // bandwidth; cifar at batch 256 10% faster, cnn 15%).
      work_group_size_(
          std::clamp<std::size_t>(device.max_work_group_size, 1, device.kind == device::DeviceKind::Cpu ? 64 : 256)) {}

std::size_t Runtime::group_size(const cl::Kernel& k) const {
    const std::size_t allowed = std::min(work_group_size_, k.max_group_size());
    std::size_t size = 1;
    while (size * 2 <= allowed) size *= 2;
    return size;
}

void Runtime::launch_3d(cl::Kernel& k, std::size_t x, std::size_t y, std::size_t z) {
    // Left to choose, a driver must pick groups that divide the range exactly, which for sizes
    // like 13 or 26 leaves groups of a handful of work-items (measured on NVIDIA: pooling ran
    // several times slower than its memory traffic). So the groups are work_group_size_
    // work-items, as wide as the rows allow, over a range rounded up to whole groups (PoCL
    // measured the same either way).
    if (x == 0 || y == 0 || z == 0) return;
    const std::size_t group = group_size(k);
    std::size_t local_x = 1;
    while (local_x < x && local_x < group) local_x *= 2;
    std::size_t local_y = 1;
    while (local_y < y && local_x * local_y < group) local_y *= 2;
    // At most 64 deep: the smallest third-dimension limit among common GPUs (NVIDIA's).
    const std::size_t local_z = std::min({z, std::size_t(64), std::max<std::size_t>(1, group / (local_x * local_y))});
    const std::array<std::size_t, 3> local{local_x, local_y, local_z};
    k.run_groups(queue_, {(x + local_x - 1) / local_x, (y + local_y - 1) / local_y, (z + local_z - 1) / local_z},
                 local);
}

const cl::Program& Runtime::program(std::string_view name) {
    auto found = programs_.find(name);
    if (found == programs_.end()) {
        const std::string_view source = kernels::embedded_source(name);
        found = programs_
                    .emplace(std::string(name),
                             std::make_unique<cl::Program>(context_, std::string(name), source,
                                                           device().tuning.build_options(name), cache_, cache_write_))
                    .first;
    }
    return *found->second;
}

std::vector<std::string_view> programs_for(const device::DeviceDescription& device) {
    std::vector<std::string_view> names;
    for (const kernels::EmbeddedKernelSource& source : kernels::embedded_sources())
        if (source.name != "gemm" || own_gemm_by_default(device)) names.push_back(source.name);
    return names;
}

void Runtime::build_programs(const std::function<void(std::size_t done, std::size_t total)>& built) {
    const std::vector<std::string_view> names = programs_for(device());
    for (std::size_t i = 0; i < names.size(); ++i) {
        program(names[i]);
        if (built) built(i + 1, names.size());
    }
}

std::vector<std::string> Runtime::cache_notes() const {
    std::vector<std::string> notes;
    for (const auto& [name, built] : programs_)
        if (!built->cache_note().empty()) notes.push_back(built->cache_note());
    return notes;
}

cl::Kernel& Runtime::create_kernel(const KernelId& id) {
    // Room for every kernel registered so far, so that the slots grow once rather than per kernel
    // (a KernelId made after this runtime, in a test, still fits: the vector grows to it).
    if (id.index() >= kernels_.size()) kernels_.resize(std::max(id.index() + 1, KernelId::registered()));
    std::unique_ptr<cl::Kernel>& slot = kernels_[id.index()];
    // clCreateKernel's error names the kernel and its program when the program lacks it.
    slot = std::make_unique<cl::Kernel>(program(id.program()), id.kernel());
    ++kernels_created_;
    return *slot;
}

namespace {
// Both element types are 4 bytes, so an int32 tensor sits in the float arena like any other.
static_assert(sizeof(int) == sizeof(float));

void copy_to_device(const cl::Queue& queue, const Tensor& tensor, const void* data, std::size_t elements) {
    require_elements(tensor, elements, "write");
    cl::check(clEnqueueWriteBuffer(queue.get(), tensor.buffer, CL_TRUE, tensor.offset * sizeof(float),
                                   elements * sizeof(float), data, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer", "tensor " + tensor.shape.to_string());
}

void copy_to_host(const cl::Queue& queue, const Tensor& tensor, void* data) {
    cl_int status = cl::injected_fault(cl::FaultPoint::read);
    if (status == CL_SUCCESS)
        status = clEnqueueReadBuffer(queue.get(), tensor.buffer, CL_TRUE, tensor.offset * sizeof(float), tensor.bytes(),
                                     data, 0, nullptr, nullptr);
    cl::check(status, "clEnqueueReadBuffer", "tensor " + tensor.shape.to_string());
}
}  // namespace

void Runtime::write(const Tensor& tensor, std::span<const float> values) {
    copy_to_device(queue_, tensor, values.data(), values.size());
}

std::vector<float> Runtime::read(const Tensor& tensor) {
    std::vector<float> values(tensor.count());
    copy_to_host(queue_, tensor, values.data());
    return values;
}

void Runtime::write_ints(const Tensor& tensor, std::span<const int> values) {
    copy_to_device(queue_, tensor, values.data(), values.size());
}

std::vector<int> Runtime::read_ints(const Tensor& tensor) {
    std::vector<int> values(tensor.count());
    copy_to_host(queue_, tensor, values.data());
    return values;
}

}  // namespace bps::ops
