#pragma once
// The tile sizes of the engine's own kernels on one device: what the tuner (ops/kernel_tuner.h)
// chose for it at the warm-up, or the source's own choice until then. Plain values; the runtime
// builds the tunable programs with them as -D definitions (build_options), and the host code that
// launches those kernels sizes its ranges by the same values.
#include <compare>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bps::device {

enum class DeviceKind;

// kernels/conv2d.cl's own convolution kernels (GPUs): groups of 8x8 work-items, each owning TM x
// TN outputs, with STEP values of the sum staged in local memory at a time.
struct ConvTile {
    int tm = 4, tn = 4, step = 16;
    std::size_t tile_m() const { return 8 * std::size_t(tm); }  // outputs of a group along channels
    std::size_t tile_n() const { return 8 * std::size_t(tn); }  // along positions or columns
    auto operator<=>(const ConvTile&) const = default;
};

// kernels/gemm.cl's products (CPUs): ROWS rows by 32 columns of C per work-item for A x B, and
// DOT_ROWS x DOT_COLS dot products for A x B^T.
struct GemmTile {
    int rows = 8, dot_rows = 4, dot_cols = 4;
    auto operator<=>(const GemmTile&) const = default;
};

struct KernelTuning {
    ConvTile conv;
    GemmTile gemm;
    auto operator<=>(const KernelTuning&) const = default;

    // The -D definitions program `program` (kernels/<program>.cl) is built with. Empty where the
    // values are the source's own, so that today's choice keeps its kernel cache entries.
    std::string build_options(std::string_view program) const;
    // What a learner reads: "convolution tiles 4x4, step 16" on a GPU, "GEMM tiles 8x32, dot 4x4"
    // on a CPU (the kernels that kind of device runs).
    std::string describe(DeviceKind kind) const;
};

// The variants the tuner times on a device of this kind, today's fixed choice first: the tiles
// the kernels' code takes that fit every device's registers and local memory (each checked against
// the C++ references in tests/engine/ops/test_kernel_tuning.cpp).
std::vector<KernelTuning> tuning_candidates(DeviceKind kind);

}  // namespace bps::device
