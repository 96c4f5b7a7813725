#pragma once
// Row-major single-precision GEMM through CLBlast: C = alpha * op(A) * op(B) + beta * C, with
// op(A) m x k, op(B) k x n and C m x n. Tensors give the buffers and element offsets; the
// leading dimensions are the row lengths of A, B and C as stored.
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

// `what` (e.g. "Dense 'fc1' forward") names the caller in errors.
void gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, const Tensor& c, std::size_t ldc, std::string_view what);

// "1.5.3": the CLBlast this program was built against (CLBlast has no run-time query).
std::string clblast_version();

}  // namespace bps::ops
