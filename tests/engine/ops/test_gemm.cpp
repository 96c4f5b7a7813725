// Both GEMM methods (CLBlast and the own CPU kernels) against a host triple loop, for every
// transpose combination, on sizes that end inside the own kernels' tiles and vector steps.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "engine/ops/gemm.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/ops/weighted_layer_check.h"

using namespace bps;

namespace {
// C = alpha * op(A) * op(B) + beta * C, row-major, in double so the expectation carries no
// float rounding of its own.
void host_gemm(std::size_t m, std::size_t n, std::size_t k, double alpha, std::span<const float> a, std::size_t lda,
               bool a_t, std::span<const float> b, std::size_t ldb, bool b_t, double beta, std::span<float> c,
               std::size_t ldc) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double sum = 0;
            for (std::size_t p = 0; p < k; ++p)
                sum += double(a_t ? a[p * lda + i] : a[i * lda + p]) * double(b_t ? b[j * ldb + p] : b[p * ldb + j]);
            c[i * ldc + j] = static_cast<float>(alpha * sum + (beta == 0 ? 0.0 : beta * double(c[i * ldc + j])));
        }
}

struct GemmSize {
    std::size_t m, n, k;
};

const char* method_name(ops::GemmMethod method) {
    return method == ops::GemmMethod::own ? "own" : method == ops::GemmMethod::clblast ? "CLBlast" : "automatic";
}
}  // namespace

TEST_CASE("gemm matches a host triple loop for every transpose on odd sizes", "[gemm]") {
    const ops::GemmMethod method = GENERATE(ops::GemmMethod::clblast, ops::GemmMethod::own, ops::GemmMethod::automatic);
    const bool a_t = GENERATE(false, true);
    const bool b_t = GENERATE(false, true);
    // The own kernels' tiles are 8 x 32 (4 x 4 for B transposed) and their dot products step 16
    // deep: 33 x 65 x 31 and 17 x 96 x 50 end inside both, and 8 x 64 x 48 fills them exactly.
    const GemmSize s = GENERATE(GemmSize{7, 5, 3}, GemmSize{1, 9, 4}, GemmSize{13, 1, 17}, GemmSize{33, 65, 31},
                                GemmSize{17, 96, 50}, GemmSize{8, 64, 48});
    const float beta = GENERATE(0.0f, 1.0f);
    constexpr float alpha = 0.5f;
    if (method == ops::GemmMethod::own && a_t && b_t) return;  // not taken by the own kernels (below)
    INFO(method_name(method) << " m " << s.m << " n " << s.n << " k " << s.k << (a_t ? ", A transposed" : "")
                             << (b_t ? ", B transposed" : "") << ", beta " << beta);

    // Stored shapes, with a leading dimension one longer than a row so the ld arguments matter.
    const std::size_t a_rows = a_t ? s.k : s.m, a_cols = a_t ? s.m : s.k, lda = a_cols + 1;
    const std::size_t b_rows = b_t ? s.n : s.k, b_cols = b_t ? s.k : s.n, ldb = b_cols + 1;
    const std::size_t ldc = s.n + 1;
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };

    test::TestTensors t;
    // A spacer puts A off the start of the buffer, so the offsets matter too.
    t.add("spacer", {1, 3, 1, 1});
    const TensorId a = t.add("a", flat(a_rows * lda)), b = t.add("b", flat(b_rows * ldb)),
                   c = t.add("c", flat(s.m * ldc));
    t.allocate();
    const std::vector<float> a_host = test::random_values(a_rows * lda, 51);
    const std::vector<float> b_host = test::random_values(b_rows * ldb, 52);
    std::vector<float> c_host = test::random_values(s.m * ldc, 53);
    t.write(a, a_host);
    t.write(b, b_host);
    t.write(c, c_host);
    const std::vector<float> c_before = c_host;

    ops::gemm(test::op_runtime(), s.m, s.n, s.k, alpha, {t[a], lda, a_t}, {t[b], ldb, b_t}, beta, t[c], ldc,
              "gemm test", method);
    host_gemm(s.m, s.n, s.k, alpha, a_host, lda, a_t, b_host, ldb, b_t, beta, c_host, ldc);
    // Sums of up to 50 products in [-1, 1]: float rounding stays far below 1e-5.
    test::require_close(t.read(c), c_host, 1e-5, "C", beta == 0 ? 0.0 : test::max_abs(c_before));
}

TEST_CASE("gemm with beta 0 ignores NaN already in C", "[gemm]") {
    const ops::GemmMethod method = GENERATE(ops::GemmMethod::clblast, ops::GemmMethod::own);
    const bool b_t = GENERATE(false, true);
    INFO(method_name(method) << (b_t ? ", B transposed" : ""));
    const GemmSize s = GENERATE(GemmSize{7, 5, 3}, GemmSize{33, 65, 31});
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };
    test::TestTensors t;
    const TensorId a = t.add("a", flat(s.m * s.k)), b = t.add("b", flat(s.k * s.n)), c = t.add("c", flat(s.m * s.n));
    t.allocate();
    const std::vector<float> a_host = test::random_values(s.m * s.k, 54);
    const std::vector<float> b_host = test::random_values(s.k * s.n, 55);
    std::vector<float> c_host(s.m * s.n, std::numeric_limits<float>::quiet_NaN());
    t.write(a, a_host);
    t.write(b, b_host);
    t.write(c, c_host);
    // B's values read as k x n, or (transposed) as n x k.
    const std::size_t ldb = b_t ? s.k : s.n;
    ops::gemm(test::op_runtime(), s.m, s.n, s.k, 1.0f, {t[a], s.k}, {t[b], ldb, b_t}, 0.0f, t[c], s.n, "gemm test",
              method);
    host_gemm(s.m, s.n, s.k, 1.0, a_host, s.k, false, b_host, ldb, b_t, 0.0, c_host, s.n);
    test::require_close(t.read(c), c_host, 1e-5, "C");
}

TEST_CASE("the own gemm kernels refuse both operands transposed, naming the caller", "[gemm]") {
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };
    test::TestTensors t;
    const TensorId a = t.add("a", flat(12)), b = t.add("b", flat(12)), c = t.add("c", flat(9));
    t.allocate();
    REQUIRE_THROWS_WITH(ops::gemm(test::op_runtime(), 3, 3, 4, 1.0f, {t[a], 3, true}, {t[b], 4, true}, 0.0f, t[c], 3,
                                  "Dense 'fc9' forward", ops::GemmMethod::own),
                        "Dense 'fc9' forward: the own GEMM kernels take at most one transposed operand");
}

TEST_CASE("a padded leading dimension is an odd number of 16-value cache lines, never shorter than the row", "[gemm]") {
    CHECK(ops::gemm_padded_ld(1) == 16);
    CHECK(ops::gemm_padded_ld(16) == 16);
    CHECK(ops::gemm_padded_ld(17) == 48);  // 2 lines are even: 3
    CHECK(ops::gemm_padded_ld(27) == 48);
    CHECK(ops::gemm_padded_ld(48) == 48);
    CHECK(ops::gemm_padded_ld(1024) == 1040);    // a sample of cifar's first convolutions
    CHECK(ops::gemm_padded_ld(65536) == 65552);  // their batch of 64
    CHECK(ops::gemm_padded_ld(7744) == 7760);    // cnn's second convolution at batch 64: 484 lines
    for (std::size_t length = 1; length < 5000; ++length) {
        const std::size_t ld = ops::gemm_padded_ld(length);
        INFO("row length " << length << ", leading dimension " << ld);
        CHECK(ld >= length);
        CHECK(ld < length + 48);
        CHECK(ld % 16 == 0);
        CHECK((ld / 16) % 2 == 1);
    }
}

TEST_CASE("A x B^T with a long k splits it into chunks when given scratch, and matches a host loop", "[gemm]") {
    // Fewer than 4 chunks of 4,096 run whole; from there on the scratch holds one m x n slab per chunk.
    CHECK(ops::gemm_split_scratch_values(5, 7, 12288) == 0);
    CHECK(ops::gemm_split_scratch_values(5, 7, 12289) == 4 * 5 * 7);
    CHECK(ops::gemm_split_scratch_values(32, 288, 65536) == 16 * 32 * 288);

    // m and n end inside the 4 x 4 dot tiles, and n = 37 inside the sum's 16-wide steps too; the
    // last chunk is short and ends inside a 16-step (5 x 4,096 + 36 = 2 steps and 4 values).
    const GemmSize s = GENERATE(GemmSize{5, 7, 16397}, GemmSize{9, 37, 20516});
    const float beta = GENERATE(0.0f, 1.0f);
    const bool scratch_large_enough = GENERATE(true, false);
    INFO("m " << s.m << " n " << s.n << " k " << s.k << ", beta " << beta
              << (scratch_large_enough ? "" : ", scratch one value short"));
    const std::size_t needed = ops::gemm_split_scratch_values(s.m, s.n, s.k);
    REQUIRE(needed > 0);
    const std::size_t lda = s.k + 3, ldb = s.k + 5, ldc = s.n + 2;
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };
    test::TestTensors t;
    t.add("spacer", {1, 5, 1, 1});
    const TensorId a = t.add("a", flat(s.m * lda)), b = t.add("b", flat(s.n * ldb)), c = t.add("c", flat(s.m * ldc)),
                   scratch = t.add("scratch", flat(scratch_large_enough ? needed : needed - 1));
    t.allocate();
    const std::vector<float> a_host = test::random_values(s.m * lda, 56);
    const std::vector<float> b_host = test::random_values(s.n * ldb, 57);
    // beta 0 must overwrite whatever C held, NaN included; beta 1 adds to random values.
    std::vector<float> c_host = beta == 0.0f ? std::vector<float>(s.m * ldc, std::numeric_limits<float>::quiet_NaN())
                                             : test::random_values(s.m * ldc, 58);
    t.write(a, a_host);
    t.write(b, b_host);
    t.write(c, c_host);
    // Scratch holding NaN: every value the sum reads must have been written by the chunks.
    t.write(scratch, std::vector<float>(t[scratch].count(), std::numeric_limits<float>::quiet_NaN()));
    const std::vector<float> c_before = c_host;

    ops::Runtime& runtime = test::op_runtime();
    const Tensor scratch_tensor = t[scratch];
    const ops::Runtime::Launches before = runtime.launches();
    ops::gemm(runtime, s.m, s.n, s.k, 0.5f, {t[a], lda}, {t[b], ldb, true}, beta, t[c], ldc, "split test",
              ops::GemmMethod::own, &scratch_tensor);
    const ops::Runtime::Launches after = runtime.launches();
    // The split is one GEMM kernel and one summing kernel; too little scratch runs the product whole.
    CHECK(after.gemms - before.gemms == 1);
    CHECK(after.kernels - before.kernels == (scratch_large_enough ? 1u : 0u));

    host_gemm(s.m, s.n, s.k, 0.5, a_host, lda, false, b_host, ldb, true, beta, c_host, ldc);
    // Sums of about 20,000 products in [-1, 1], in float on the device: measured below 2e-6.
    const std::vector<float> c_device = t.read(c);
    std::vector<float> product, expected;
    for (std::size_t i = 0; i < s.m; ++i) {
        product.insert(product.end(), c_device.begin() + i * ldc, c_device.begin() + i * ldc + s.n);
        expected.insert(expected.end(), c_host.begin() + i * ldc, c_host.begin() + i * ldc + s.n);
        // The values between rows (ldc > n) are left as they were.
        for (std::size_t j = s.n; j < ldc; ++j) {
            INFO("row " << i << " column " << j);
            const float now = c_device[i * ldc + j], was = c_before[i * ldc + j];
            CHECK((now == was || (std::isnan(now) && std::isnan(was))));
        }
    }
    test::require_close(product, expected, 1e-5, "C", beta == 0 ? 0.0 : test::max_abs(c_before));
}

TEST_CASE("A x B^T with a bias and a fused activation runs as one GEMM on CPU devices and matches a host loop",
          "[gemm]") {
    // Sizes that end inside the 4 x 4 dot tiles and the 16-deep steps, and mlp's fc2 (64 x 10 x 256).
    const GemmSize s = GENERATE(GemmSize{7, 5, 3}, GemmSize{1, 9, 4}, GemmSize{33, 65, 31}, GemmSize{64, 10, 256});
    std::vector<std::optional<ops::FusedActivation>> activations{std::nullopt};
    for (const ops::FusedActivation& activation : test::fusable_activations()) activations.emplace_back(activation);
    const std::optional<ops::FusedActivation> activation = GENERATE_REF(from_range(activations));
    INFO("m " << s.m << " n " << s.n << " k " << s.k << ", "
              << (activation ? test::describe(*activation) : std::string("no activation")));
    const std::size_t lda = s.k + 1, ldb = s.k + 2, ldc = s.n + 1;
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };
    test::TestTensors t;
    t.add("spacer", {1, 3, 1, 1});
    const TensorId a = t.add("a", flat(s.m * lda)), b = t.add("b", flat(s.n * ldb)), bias = t.add("bias", flat(s.n)),
                   c = t.add("c", flat(s.m * ldc));
    t.allocate();
    const std::vector<float> a_host = test::random_values(s.m * lda, 61), b_host = test::random_values(s.n * ldb, 62),
                             bias_host = test::random_values(s.n, 63), c_before = test::random_values(s.m * ldc, 64);
    t.write(a, a_host);
    t.write(b, b_host);
    t.write(bias, bias_host);
    t.write(c, c_before);

    ops::Runtime& runtime = test::op_runtime();
    const ops::Runtime::Launches before = runtime.launches();
    const bool ran = ops::gemm_nt_bias_activation(runtime, s.m, s.n, s.k, {t[a], lda}, {t[b], ldb, true}, t[bias],
                                                  activation, t[c], ldc, "bias test");
    const ops::Runtime::Launches after = runtime.launches();
    // The own kernels run it on CPU devices, as one GEMM and nothing else; elsewhere nothing runs
    // (the caller runs CLBlast, then the bias).
    const bool cpu = runtime.device().kind == device::DeviceKind::Cpu;
    REQUIRE(ran == cpu);
    CHECK(after.gemms - before.gemms == (cpu ? 1u : 0u));
    CHECK(after.kernels == before.kernels);
    const std::vector<float> c_device = t.read(c);
    if (!cpu) {
        CHECK(c_device == c_before);
        return;
    }

    std::vector<float> z(s.m * ldc, 0.0f);
    host_gemm(s.m, s.n, s.k, 1.0, a_host, lda, false, b_host, ldb, true, 0.0, z, ldc);
    std::vector<float> product, expected_z;
    for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
            if (j == s.n) {
                // The values between rows (ldc > n) are left as they were.
                CHECK(c_device[i * ldc + j] == c_before[i * ldc + j]);
                continue;
            }
            product.push_back(c_device[i * ldc + j]);
            expected_z.push_back(z[i * ldc + j] + bias_host[j]);
        }
    const std::vector<float> expected =
        activation ? test::fused_activation_reference(*activation, expected_z, expected_z).y : expected_z;
    // Sums of up to 256 products in [-1, 1]: float rounding stays far below 1e-5.
    test::require_close(product, expected, 1e-5, "f(A x B^T + bias)");
}

TEST_CASE("the bias product refuses a transposed A and a bias shorter than a row, naming the caller", "[gemm]") {
    const auto flat = [](std::size_t count) { return Shape{1, static_cast<int>(count), 1, 1}; };
    test::TestTensors t;
    const TensorId a = t.add("a", flat(12)), b = t.add("b", flat(12)), bias = t.add("bias", flat(2)),
                   c = t.add("c", flat(9));
    t.allocate();
    ops::Runtime& runtime = test::op_runtime();
    REQUIRE_THROWS_WITH(ops::gemm_nt_bias_activation(runtime, 3, 3, 4, {t[a], 3, true}, {t[b], 4, true}, t[c],
                                                     std::nullopt, t[c], 3, "Dense 'fc9' forward"),
                        "Dense 'fc9' forward: the bias product takes A as stored and B transposed");
    REQUIRE_THROWS_WITH(ops::gemm_nt_bias_activation(runtime, 3, 3, 4, {t[a], 4}, {t[b], 4, true}, t[bias],
                                                     std::nullopt, t[c], 3, "Dense 'fc9' forward"),
                        "Dense 'fc9' forward: bias 1x2x1x1 holds fewer than the 3 columns of the product");
}
