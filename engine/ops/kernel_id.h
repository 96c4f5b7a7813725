#pragma once
// The name of one engine kernel (kernel `kernel` of kernels/<program>.cl), given once by the op
// that launches it, at namespace scope in its .cpp:
//
//     const ops::KernelId softmax_kernel{"loss", "softmax"};
//
// Each KernelId registers itself in a process-wide registry and holds a dense index there, so a
// Runtime finds its cl::Kernel for a launch by indexing a vector: no key string is built and no
// map is searched on every launch. Two KernelIds naming the same pair share one index.
#include <cstddef>
#include <string>
#include <string_view>

namespace bps::ops {

class KernelId {
public:
    // Registers (program, kernel), or finds it registered already. Safe at namespace scope in any
    // translation unit: the registry is created on first use, whatever the order of static
    // initialisation, and a mutex guards it.
    KernelId(std::string_view program, std::string_view kernel);

    std::size_t index() const noexcept { return index_; }
    const std::string& program() const noexcept { return program_; }
    const std::string& kernel() const noexcept { return kernel_; }

    // How many distinct (program, kernel) pairs are registered so far: every index is below it.
    static std::size_t registered();

private:
    std::string program_;
    std::string kernel_;
    std::size_t index_;
};

}  // namespace bps::ops
