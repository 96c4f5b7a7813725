#pragma once
// Row-major single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, with op(A) m x k, op(B)
// k x n and C m x n. Tensors give the buffers and element offsets; the leading dimensions are the
// row lengths of A, B and C as stored. GPUs run CLBlast; CPU devices run the engine's own kernels
// (kernels/gemm.cl), several times faster there than CLBlast's GPU-tiled ones.
#include <cstddef>
#include <string>
#include <string_view>

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

// What `automatic` runs on this runtime's device (for products an int can index): "own CPU
// kernels" or "CLBlast", for reports.
const char* gemm_implementation(const Runtime& runtime);

// `what` (e.g. "Dense 'fc1' forward") names the caller in errors.
void gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, const Tensor& c, std::size_t ldc, std::string_view what,
          GemmMethod method = GemmMethod::automatic);

// "1.5.3": the CLBlast this program was built against (CLBlast has no run-time query).
std::string clblast_version();

}  // namespace bps::ops
