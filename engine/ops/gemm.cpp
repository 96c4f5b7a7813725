#include "engine/ops/gemm.h"

#include <clblast.h>

#include <stdexcept>
#include <string>

#include "engine/cl/error.h"

namespace bps::ops {

namespace {
std::string clblast_status(clblast::StatusCode status) {
    const int code = static_cast<int>(status);
    // CLBlast shares the OpenCL codes above -1000 and adds its own below.
    if (code > -1000) return cl::status_name(code);
    return "CLBlast status " + std::to_string(code);
}
}  // namespace

void gemm(Runtime& runtime, std::size_t m, std::size_t n, std::size_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, const Tensor& c, std::size_t ldc, std::string_view what) {
    if (m == 0 || n == 0 || k == 0) return;
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

std::string clblast_version() {
    return std::to_string(CLBLAST_VERSION_MAJOR) + "." + std::to_string(CLBLAST_VERSION_MINOR) + "." +
           std::to_string(CLBLAST_VERSION_PATCH);
}

}  // namespace bps::ops
