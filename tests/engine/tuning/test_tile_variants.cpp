// Every tile variant the tuner may choose (device::tuning_candidates) against the C++ references:
// the convolution's own kernels (a GPU's variants) and the CPU products of kernels/gemm.cl (a
// CPU's), each built with the variant's -D definitions and launched over ranges the host sizes by
// the same variant. A host and a kernel that disagreed on a tile would leave outputs unwritten or
// written twice.
#include <catch2/catch.hpp>
#include <sstream>

#include "engine/ops/conv2d.h"
#include "engine/ops/gemm.h"
#include "engine/reference/conv2d.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/test_device.h"

using namespace bps;
using model::Conv2dGeometry;
using model::Padding;

namespace {

// Device memory of one test, written from and read back to host vectors.
class Tensors {
public:
    explicit Tensors(ops::Runtime& runtime) : runtime_(runtime) {}
    Tensor make(const Shape& shape, const std::vector<float>& values) {
        buffers_.emplace_back(runtime_.context(), shape.count() * sizeof(float));
        const Tensor tensor{buffers_.back().get(), 0, shape};
        runtime_.write(tensor, values);
        return tensor;
    }

private:
    ops::Runtime& runtime_;
    std::vector<cl::Buffer> buffers_;
};

cl::DeviceInfo tuned_device(const device::KernelTuning& tuning) {
    cl::DeviceInfo device = test::test_device();
    device.tuning = tuning;
    return device;
}

struct ConvCase {
    Shape x;
    int filters;
    Conv2dGeometry geometry;
};

// One convolution's forward and backward on `runtime` with `method`, against the reference.
void check_convolution(ops::Runtime& runtime, const ConvCase& c, ops::ConvMethod method) {
    const Shape w_shape{c.filters, c.x.c, c.geometry.kernel_h, c.geometry.kernel_w}, b_shape{1, c.filters, 1, 1};
    const Shape y_shape = model::conv2d_output_shape(c.x, c.filters, c.geometry);
    const std::vector<float> x = test::random_values(c.x.count(), 1), w = test::random_values(w_shape.count(), 2),
                             b = test::random_values(b_shape.count(), 3), dy = test::random_values(y_shape.count(), 4);
    const std::size_t workspace = ops::conv2d_workspace_elements(runtime, c.x, c.filters, c.geometry, method);
    Tensors t(runtime);
    const Tensor tx = t.make(c.x, x), tw = t.make(w_shape, w), tb = t.make(b_shape, b), tdy = t.make(y_shape, dy);
    // Stale values in every output: a tile left unwritten shows.
    const Tensor ty = t.make(y_shape, test::random_values(y_shape.count(), 5)),
                 tdx = t.make(c.x, test::random_values(c.x.count(), 6)),
                 tdw = t.make(w_shape, test::random_values(w_shape.count(), 7)),
                 tdb = t.make(b_shape, test::random_values(b_shape.count(), 8)),
                 tspace = t.make(Shape{1, int(workspace), 1, 1}, test::random_values(workspace, 9));
    ops::conv2d_forward(runtime, c.geometry, tx, tw, tb, ty, tspace, method);
    ops::conv2d_backward(runtime, c.geometry, tx, tw, tdy, tdx, ops::GradWrite::overwrite, tdw, tdb, tspace, method);

    std::vector<float> y_ref(y_shape.count()), dx_ref(c.x.count()), dw_ref(w_shape.count()), db_ref(b_shape.count());
    ref::conv2d_forward<float>(c.geometry, c.x, w_shape, x, w, b, y_ref);
    ref::conv2d_backward<float>(c.geometry, c.x, w_shape, x, w, dy, dx_ref, dw_ref, db_ref);
    constexpr double tolerance = 1e-5;  // as tests/engine/ops/test_conv2d.cpp
    test::require_close(runtime.read(ty), y_ref, tolerance, "y");
    test::require_close(runtime.read(tdx), dx_ref, tolerance, "dx");
    test::require_close(runtime.read(tdw), dw_ref, tolerance, "dweight");
    test::require_close(runtime.read(tdb), db_ref, tolerance, "dbias");
}

// Shapes whose edges fall inside every variant's tiles (8 to 64 channels, 32 to 64 positions a
// tile): 20 filters over 37 channels (two tiles of the narrow variants, a short last step of 16),
// 33 filters, a filter gradient of several chunks, and odd planes and strides.
std::vector<ConvCase> convolution_cases() {
    return {ConvCase{{2, 37, 9, 11}, 20, {2, 4, 2, 3, Padding::same}},
            ConvCase{{3, 5, 17, 19}, 33, {3, 3, 2, 1, Padding::same}},
            ConvCase{{5, 3, 30, 30}, 40, {3, 3, 1, 1, Padding::valid}},
            ConvCase{{1, 33, 3, 3}, 33, {2, 2, 1, 1, Padding::same}}};
}

std::string describe(const device::KernelTuning& tuning, device::DeviceKind kind) {
    std::ostringstream text;
    text << tuning.describe(kind) << " (-D: '"
         << tuning.build_options(kind == device::DeviceKind::Cpu ? "gemm" : "conv2d") << "')";
    return text.str();
}

}  // namespace

TEST_CASE("every convolution tile a GPU's tuning may choose computes the convolution as the reference does",
          "[tuning]") {
    const device::KernelTuning tuning =
        GENERATE(from_range(device::tuning_candidates(device::DeviceKind::DiscreteGpu)));
    INFO(describe(tuning, device::DeviceKind::DiscreteGpu));
    ops::Runtime runtime(tuned_device(tuning));
    for (const ConvCase& c : convolution_cases()) {
        INFO(c.x.to_string() << " to " << c.filters << " filters");
        check_convolution(runtime, c, ops::ConvMethod::own);
    }
}

TEST_CASE("every GEMM tile a CPU's tuning may choose computes convolutions and products as the references do",
          "[tuning]") {
    const device::KernelTuning tuning = GENERATE(from_range(device::tuning_candidates(device::DeviceKind::Cpu)));
    INFO(describe(tuning, device::DeviceKind::Cpu));
    ops::Runtime runtime(tuned_device(tuning));
    for (const ConvCase& c : convolution_cases()) {
        INFO(c.x.to_string() << " to " << c.filters << " filters");
        check_convolution(runtime, c, ops::ConvMethod::gemm);
    }
    // The three products on their own, 13 x 37 over 50 (no tile divides it), through gemm.cl
    // whatever the device (a GPU's convolutions above went through CLBlast).
    constexpr std::size_t m = 13, n = 37, k = 50;
    const std::vector<float> a = test::random_values(m * k, 11), b = test::random_values(n * k, 12),
                             bias = test::random_values(n, 13);
    Tensors t(runtime);
    // A stored m x k, B stored n x k: as A x B^T, and as (A^T)^T x (B^T) through a transposed copy.
    std::vector<float> b_t(k * n);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t d = 0; d < k; ++d) b_t[d * n + j] = b[j * k + d];
    std::vector<float> a_t(k * m);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t d = 0; d < k; ++d) a_t[d * m + i] = a[i * k + d];
    const Tensor ta = t.make(Shape{1, 1, int(m), int(k)}, a), tb = t.make(Shape{1, 1, int(n), int(k)}, b),
                 tbt = t.make(Shape{1, 1, int(k), int(n)}, b_t), tat = t.make(Shape{1, 1, int(k), int(m)}, a_t),
                 tbias = t.make(Shape{1, 1, 1, int(n)}, bias);
    std::vector<float> product(m * n), biased(m * n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double sum = 0;
            for (std::size_t d = 0; d < k; ++d) sum += double(a[i * k + d]) * double(b[j * k + d]);
            product[i * n + j] = float(sum);
            biased[i * n + j] = float(sum + bias[j]);
        }
    const auto stale = [&t] { return t.make(Shape{1, 1, int(m), int(n)}, test::random_values(m * n, 14)); };
    const Tensor nt = stale(), nn = stale(), tn = stale();
    constexpr auto own = ops::GemmMethod::own;
    ops::gemm(runtime, m, n, k, 1, {ta, k}, {tb, k, true}, 0, nt, n, "tuning test", own);
    ops::gemm(runtime, m, n, k, 1, {ta, k}, {tbt, n}, 0, nn, n, "tuning test", own);
    ops::gemm(runtime, m, n, k, 1, {tat, m, true}, {tbt, n}, 0, tn, n, "tuning test", own);
    test::require_close(runtime.read(nt), product, 1e-5, "A x B^T");
    test::require_close(runtime.read(nn), product, 1e-5, "A x B");
    test::require_close(runtime.read(tn), product, 1e-5, "A^T x B");
    // A Dense layer's biased product, one gemm.cl kernel where the device runs the own GEMMs.
    if (ops::own_gemm_by_default(runtime.device())) {
        const Tensor dense = stale();
        REQUIRE(ops::gemm_nt_bias_activation(runtime, m, n, k, {ta, k}, {tb, k, true}, tbias, std::nullopt, dense, n,
                                             "tuning test"));
        test::require_close(runtime.read(dense), biased, 1e-5, "A x B^T + bias");
    }
}

TEST_CASE("a variant's build options define only what differs from the source's own tiles", "[tuning]") {
    const device::KernelTuning today;
    CHECK(today.build_options("conv2d").empty());
    CHECK(today.build_options("gemm").empty());
    device::KernelTuning wide;
    wide.conv = {8, 4, 16};
    CHECK(wide.build_options("conv2d") == "-DTM=8 -DTN=4 -DSTEP=16");
    CHECK(wide.build_options("gemm").empty());
    CHECK(wide.build_options("pool").empty());
    device::KernelTuning narrow;
    narrow.gemm = {6, 2, 8};
    CHECK(narrow.build_options("gemm") == "-DROWS=6 -DDOT_ROWS=2 -DDOT_COLS=8");
    CHECK(narrow.describe(device::DeviceKind::Cpu) == "GEMM tiles 6x32, dot 2x8");
    CHECK(wide.describe(device::DeviceKind::IntegratedGpu) == "convolution tiles 8x4, step 16");
    // Today's choice is every kind's first candidate: the one timed first, and kept when all fail.
    CHECK(device::tuning_candidates(device::DeviceKind::Cpu).front() == today);
    CHECK(device::tuning_candidates(device::DeviceKind::DiscreteGpu).front() == today);
}
