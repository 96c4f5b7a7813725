#pragma once
// Row-major single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, with op(A) m x k, op(B)
// k x n and C m x n. Tensors give the buffers and element offsets; the leading dimensions are the
// row lengths of A, B and C as stored. GPUs run CLBlast; CPU devices run the engine's own kernels
// (kernels/gemm.cl), several times faster there than CLBlast's GPU-tiled ones.
#include <cstddef>
#include <string>
#include <string_view>

#include "engine/ops/activation.h"
#include "engine/ops/runtime.h"

namespace bps::ops {

struct GemmOperand {
    const Tensor& tensor;
    std::size_t ld;           // elements per stored row
    bool transposed = false;  // use the stored matrix transposed
};

// automatic: own on CPU devices, CLBlast elsewhere. The own kernels take every case but both
// operands transposed, and products whose elements an int can index; others go to CLBlast.
enum class GemmMethod { automatic, clblast, own };

// Whether `automatic` runs the own kernels (kernels/gemm.cl) on this device: on CPU devices only.
bool own_gemm_by_default(const device::DeviceDescription& device);

// What `automatic` runs on this runtime's device (for products an int can index): "own CPU
// kernels" or "CLBlast", for reports.
const char* gemm_implementation(const Runtime& runtime);

// A x B^T with few outputs, each a long sum (a convolution's filter gradient: k is the batch's
// positions), runs faster on CPU devices in chunks of k: each chunk's products go to a slab of
// scratch memory, and one more kernel adds the slabs up. Measured on the own kernels
// (docs/performance.md): 4.1 to 2.3 ms for 32 x 288 x 65536 on 16 cores; 9.6 to 8.5 ms on 2.
// The values of scratch such a product needs (0: it runs whole): the caller that passes this much
// scratch to gemm gets the split wherever the own kernels run the product.
std::size_t gemm_split_scratch_values(std::size_t m, std::size_t n, std::size_t k);

// A leading dimension (the distance between stored rows, in values) for a matrix with rows of
// `row_length` values that products read several rows of in step: whole cache lines of 16 values,
// an odd number of them. Rows a power of two apart (the 65,536 or 16,384 positions of cifar's
// convolutions at batch 64) all fall in the same few sets of a core's cache and evict one another:
// on the lent machine's 16 cores that made cifar's convolution products up to 1.9 times slower, in
// one call 4.7 times (docs/performance.md, "Rows a power of two apart").
std::size_t gemm_padded_ld(std::size_t row_length);

// `what` (e.g. "Dense 'fc1' forward") names the caller in errors. `split_scratch` (optional): at
// least gemm_split_scratch_values(m, n, k) values that the product may overwrite; without it, or
// when it is too small, the product runs whole.
void gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, const Tensor& c, std::size_t ldc, std::string_view what,
          GemmMethod method = GemmMethod::automatic, const Tensor* split_scratch = nullptr);

// C = f(A x B^T + bias) (A m x k, B n x k as stored, bias n values, one per column of C; f a fused
// activation, or none): a Dense layer's forward in one command, where the own kernels run the
// product (CPU devices), each value finished as it is stored. On 16 cores of PoCL every command
// costs about 0.1 ms (docs/performance.md), so this is one fewer per Dense layer and step. Returns
// false, running nothing, where CLBlast would run the product: the caller then runs gemm and adds
// the bias itself. A transposed A or an untransposed B is refused, naming `what`.
bool gemm_nt_bias_activation(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, GemmOperand a,
                             GemmOperand b, const Tensor& bias, const std::optional<FusedActivation>& activation,
                             const Tensor& c, std::size_t ldc, std::string_view what);

// "1.5.3": the CLBlast this program was built against (CLBlast has no run-time query).
std::string clblast_version();

}  // namespace bps::ops
