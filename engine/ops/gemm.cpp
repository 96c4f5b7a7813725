#include "engine/ops/gemm.h"

#include <clblast.h>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#include "engine/cl/error.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/gemm.cl), named once.
const KernelId gemm_nt_partial_kernel{"gemm", "gemm_nt_partial"};
const KernelId gemm_nt_sum_kernel{"gemm", "gemm_nt_sum"};
const KernelId gemm_nt_bias_kernel{"gemm", "gemm_nt_bias"};
const KernelId gemm_nt_kernel{"gemm", "gemm_nt"};
const KernelId gemm_tn_kernel{"gemm", "gemm_tn"};
const KernelId gemm_nn_kernel{"gemm", "gemm_nn"};

std::string clblast_status(clblast::StatusCode status) {
    const int code = static_cast<int>(status);
    // CLBlast shares the OpenCL codes above -1000 and adds its own below.
    if (code > -1000) return cl::status_name(code);
    return "CLBlast status " + std::to_string(code);
}

constexpr std::size_t int_limit = INT_MAX;

// Whether every index of a stored rows x columns matrix (with its offset) fits an int, the
// type the own kernels index with.
bool int_indexable(std::size_t offset, std::size_t rows, std::size_t columns, std::size_t ld) {
    return ld <= int_limit && columns <= ld && offset <= int_limit &&
           rows <= (int_limit - offset) / std::max<std::size_t>(ld, 1);
}

bool own_kernels_take(std::size_t m, std::size_t n, std::size_t k, const GemmOperand& a, const GemmOperand& b,
                      const Tensor& c, std::size_t ldc) {
    if (a.transposed && b.transposed) return false;
    return m <= int_limit && n <= int_limit && k <= int_limit &&
           int_indexable(a.tensor.offset, a.transposed ? k : m, a.transposed ? m : k, a.ld) &&
           int_indexable(b.tensor.offset, b.transposed ? n : k, b.transposed ? k : n, b.ld) &&
           int_indexable(c.offset, m, n, ldc);
}

bool own_by_default(const Runtime& runtime) {
    return own_gemm_by_default(runtime.device());
}

GemmMethod resolved(const Runtime& runtime, GemmMethod method, std::size_t m, std::size_t n, std::size_t k,
                    const GemmOperand& a, const GemmOperand& b, const Tensor& c, std::size_t ldc,
                    std::string_view what) {
    if (method == GemmMethod::automatic)
        return own_by_default(runtime) && own_kernels_take(m, n, k, a, b, c, ldc) ? GemmMethod::own
                                                                                  : GemmMethod::clblast;
    if (method == GemmMethod::own && a.transposed && b.transposed)
        throw std::invalid_argument(std::string(what) + ": the own GEMM kernels take at most one transposed operand");
    if (method == GemmMethod::own && !own_kernels_take(m, n, k, a, b, c, ldc))
        throw std::invalid_argument(std::string(what) + ": a " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                    std::to_string(k) + " GEMM indexes past what the own kernels' int indices reach");
    return method;
}

// kernels/gemm.cl: ROWS x COLS tiles of C per work-item for nn and tn, DOT_ROWS x DOT_COLS for nt;
// all but COLS are the device's tuning (device/kernel_tuning.h), with which the program was built.
constexpr std::size_t broadcast_columns = 32;
std::size_t broadcast_rows(const Runtime& runtime) {
    return std::size_t(runtime.tuning().gemm.rows);
}
// The range of one work-item per DOT_ROWS x DOT_COLS tile of an m x n product, `depth` deep.
std::array<std::size_t, 3> dot_groups(const Runtime& runtime, std::size_t m, std::size_t n, std::size_t depth) {
    const std::size_t rows = std::size_t(runtime.tuning().gemm.dot_rows),
                      columns = std::size_t(runtime.tuning().gemm.dot_cols);
    return {(m + rows - 1) / rows, (n + columns - 1) / columns, depth};
}

// A x B^T splits k into chunks of split_chunk (a multiple of the kernel's step of 16) when there
// are at least min_split_chunks of them. Measured on 2 and 16 cores (docs/performance.md): chunks
// of 4,096 were the fastest, or within noise of it, for the filter gradients of the reference
// networks; with 2 chunks (cnn's conv2, k = 7,744) the split gained nothing.
constexpr std::size_t split_chunk = 4096, min_split_chunks = 4;

std::size_t split_chunks(std::size_t k) {
    const std::size_t chunks = (k + split_chunk - 1) / split_chunk;
    return chunks >= min_split_chunks ? chunks : 1;
}

// C = alpha * A * B^T + beta * C in two kernels: gemm_nt_partial writes each chunk's dot products
// to its m x n slab of scratch, gemm_nt_sum adds the slabs in order into C.
void split_dot_gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, const GemmOperand& a,
                    const GemmOperand& b, float beta, const Tensor& c, std::size_t ldc, const Tensor& scratch) {
    const std::size_t chunks = split_chunks(k);
    cl::Kernel& partial = runtime.kernel(gemm_nt_partial_kernel);
    Runtime::set_arguments(partial, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                           static_cast<int>(split_chunk), a.tensor, static_cast<int>(a.ld), b.tensor,
                           static_cast<int>(b.ld), scratch);
    partial.run_groups(runtime.queue(), dot_groups(runtime, m, n, chunks), {1, 1, 1});
    runtime.count_gemm();
    runtime.run(gemm_nt_sum_kernel, m, static_cast<int>(m), static_cast<int>(n), static_cast<int>(chunks), alpha,
                scratch, beta, c, static_cast<int>(ldc));
}

void own_gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, const GemmOperand& a,
              const GemmOperand& b, float beta, const Tensor& c, std::size_t ldc, const Tensor* split_scratch) {
    const bool dot = b.transposed;
    const std::size_t scratch_needed = gemm_split_scratch_values(m, n, k);
    if (dot && scratch_needed > 0 && split_scratch != nullptr && split_scratch->count() >= scratch_needed &&
        int_indexable(split_scratch->offset, 1, scratch_needed, scratch_needed)) {
        split_dot_gemm(runtime, m, n, k, alpha, a, b, beta, c, ldc, *split_scratch);
        return;
    }
    cl::Kernel& kernel = runtime.kernel(dot ? gemm_nt_kernel : a.transposed ? gemm_tn_kernel : gemm_nn_kernel);
    Runtime::set_arguments(kernel, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a.tensor,
                           static_cast<int>(a.ld), b.tensor, static_cast<int>(b.ld), beta, c, static_cast<int>(ldc));
    // Groups of one work-item: each is a whole register tile, and a CPU runs groups on its cores.
    const std::size_t rows = broadcast_rows(runtime);
    kernel.run_groups(
        runtime.queue(),
        dot ? dot_groups(runtime, m, n, 1)
            : std::array<std::size_t, 3>{(m + rows - 1) / rows, (n + broadcast_columns - 1) / broadcast_columns, 1},
        {1, 1, 1});
    runtime.count_gemm();
}
}  // namespace

std::size_t gemm_padded_ld(std::size_t row_length) {
    constexpr std::size_t line = 16;  // floats in a 64-byte cache line
    const std::size_t lines = (row_length + line - 1) / line;
    return (lines % 2 == 0 ? lines + 1 : lines) * line;
}

std::size_t gemm_split_scratch_values(std::size_t m, std::size_t n, std::size_t k) {
    const std::size_t chunks = split_chunks(k);
    return chunks > 1 ? chunks * m * n : 0;
}

void gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, const Tensor& c, std::size_t ldc, std::string_view what, GemmMethod method,
          const Tensor* split_scratch) {
    if (m == 0 || n == 0 || k == 0) return;
    if (resolved(runtime, method, m, n, k, a, b, c, ldc, what) == GemmMethod::own) {
        own_gemm(runtime, m, n, k, alpha, a, b, beta, c, ldc, split_scratch);
        return;
    }
    cl_command_queue queue = runtime.queue().get();
    const clblast::StatusCode status = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, a.transposed ? clblast::Transpose::kYes : clblast::Transpose::kNo,
        b.transposed ? clblast::Transpose::kYes : clblast::Transpose::kNo, m, n, k, alpha, a.tensor.buffer,
        a.tensor.offset, a.ld, b.tensor.buffer, b.tensor.offset, b.ld, beta, c.buffer, c.offset, ldc, &queue);
    runtime.count_gemm();
    if (status != clblast::StatusCode::kSuccess)
        throw std::runtime_error(std::string(what) + ": CLBlast GEMM " + std::to_string(m) + "x" + std::to_string(n) +
                                 "x" + std::to_string(k) + " on " + runtime.device().name + " failed with " +
                                 clblast_status(status));
}

bool gemm_nt_bias_activation(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, GemmOperand a,
                             GemmOperand b, const Tensor& bias, const std::optional<FusedActivation>& activation,
                             const Tensor& c, std::size_t ldc, std::string_view what) {
    if (a.transposed || !b.transposed)
        throw std::invalid_argument(std::string(what) + ": the bias product takes A as stored and B transposed");
    if (bias.count() < n)
        throw std::invalid_argument(std::string(what) + ": bias " + bias.shape.to_string() + " holds fewer than the " +
                                    std::to_string(n) + " columns of the product");
    if (m == 0 || n == 0 || k == 0) return false;
    if (resolved(runtime, GemmMethod::automatic, m, n, k, a, b, c, ldc, what) != GemmMethod::own ||
        !int_indexable(bias.offset, 1, n, n))
        return false;
    cl::Kernel& kernel = runtime.kernel(gemm_nt_bias_kernel);
    Runtime::set_arguments(kernel, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), a.tensor,
                           static_cast<int>(a.ld), b.tensor, static_cast<int>(b.ld), c, static_cast<int>(ldc), bias,
                           FusedActivation::kernel_kind(activation), FusedActivation::kernel_slope(activation));
    kernel.run_groups(runtime.queue(), dot_groups(runtime, m, n, 1), {1, 1, 1});
    runtime.count_gemm();
    return true;
}

bool own_gemm_by_default(const device::DeviceDescription& device) {
    return device.kind == device::DeviceKind::Cpu;
}

const char* gemm_implementation(const Runtime& runtime) {
    return own_by_default(runtime) ? "own CPU kernels" : "CLBlast";
}

std::string clblast_version() {
    return std::to_string(CLBLAST_VERSION_MAJOR) + "." + std::to_string(CLBLAST_VERSION_MINOR) + "." +
           std::to_string(CLBLAST_VERSION_PATCH);
}

}  // namespace bps::ops
