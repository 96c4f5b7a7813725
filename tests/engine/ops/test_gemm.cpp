// The CLBlast GEMM wrapper against a host triple loop, for every transpose combination.
#include <catch2/catch.hpp>
#include <limits>

#include "engine/ops/gemm.h"
#include "tests/engine/ops/op_checks.h"

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
}  // namespace

TEST_CASE("gemm matches a host triple loop for every transpose on odd sizes", "[gemm]") {
    const bool a_t = GENERATE(false, true);
    const bool b_t = GENERATE(false, true);
    const GemmSize s = GENERATE(GemmSize{7, 5, 3}, GemmSize{1, 9, 4}, GemmSize{13, 1, 17}, GemmSize{33, 65, 31});
    const float beta = GENERATE(0.0f, 1.0f);
    constexpr float alpha = 0.5f;
    INFO("m " << s.m << " n " << s.n << " k " << s.k << (a_t ? ", A transposed" : "") << (b_t ? ", B transposed" : "")
              << ", beta " << beta);

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
              "gemm test");
    host_gemm(s.m, s.n, s.k, alpha, a_host, lda, a_t, b_host, ldb, b_t, beta, c_host, ldc);
    // Sums of up to 31 products in [-1, 1]: float rounding stays far below 1e-5.
    test::require_close(t.read(c), c_host, 1e-5, "C", beta == 0 ? 0.0 : test::max_abs(c_before));
}

TEST_CASE("gemm with beta 0 ignores NaN already in C", "[gemm]") {
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
    ops::gemm(test::op_runtime(), s.m, s.n, s.k, 1.0f, {t[a], s.k}, {t[b], s.n}, 0.0f, t[c], s.n, "gemm test");
    host_gemm(s.m, s.n, s.k, 1.0, a_host, s.k, false, b_host, s.n, false, 0.0, c_host, s.n);
    test::require_close(t.read(c), c_host, 1e-5, "C");
}
