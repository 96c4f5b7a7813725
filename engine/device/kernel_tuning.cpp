#include "engine/device/kernel_tuning.h"

#include "engine/device/device_description.h"

namespace bps::device {

namespace {
std::string define(const char* name, int value) {
    return std::string(" -D") + name + "=" + std::to_string(value);
}
std::string trimmed(const std::string& options) {
    return options.empty() ? options : options.substr(1);
}
}  // namespace

std::string KernelTuning::build_options(std::string_view program) const {
    if (program == "conv2d" && conv != ConvTile{})
        return trimmed(define("TM", conv.tm) + define("TN", conv.tn) + define("STEP", conv.step));
    if (program == "gemm" && gemm != GemmTile{})
        return trimmed(define("ROWS", gemm.rows) + define("DOT_ROWS", gemm.dot_rows) +
                       define("DOT_COLS", gemm.dot_cols));
    return {};
}

std::string KernelTuning::describe(DeviceKind kind) const {
    if (kind == DeviceKind::Cpu)
        return "GEMM tiles " + std::to_string(gemm.rows) + "x32, dot " + std::to_string(gemm.dot_rows) + "x" +
               std::to_string(gemm.dot_cols);
    return "convolution tiles " + std::to_string(conv.tm) + "x" + std::to_string(conv.tn) + ", step " +
           std::to_string(conv.step);
}

std::vector<KernelTuning> tuning_candidates(DeviceKind kind) {
    // CPUs run the convolutions through gemm.cl and GPUs through conv2d.cl's own kernels
    // (ops/conv2d.h): each kind times only the tiles of the kernels it runs.
    if (kind == DeviceKind::Cpu)
        return {KernelTuning{{}, GemmTile{8, 4, 4}}, KernelTuning{{}, GemmTile{4, 4, 4}},
                KernelTuning{{}, GemmTile{6, 2, 8}}, KernelTuning{{}, GemmTile{8, 4, 2}}};
    // Measured on the H200 (docs/performance.md, "The convolution tile on the GPU"): all four
    // within 27% of each other there; smaller GPUs with fewer registers may prefer others.
    return {KernelTuning{ConvTile{4, 4, 16}, {}}, KernelTuning{ConvTile{4, 8, 16}, {}},
            KernelTuning{ConvTile{8, 4, 16}, {}}, KernelTuning{ConvTile{8, 8, 16}, {}}};
}

}  // namespace bps::device
