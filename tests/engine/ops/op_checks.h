#pragma once
// What every op test uses: one runtime on the test device, seeded random inputs (never zeros),
// the tolerance check, and central finite differences on the double-precision reference.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/ops/runtime.h"
#include "engine/tensor/tensor_arena.h"

namespace bps::test {

// One runtime per test process, on test_device() (PoCL in CI).
ops::Runtime& op_runtime();

// Whether BACKPROP_SMALL_OP_TESTS=1 asks the op tests for their small cases only: under Oclgrind,
// which interprets every work-item, a large case takes minutes (tests/sanitize/oclgrind.sh). The
// normal runs leave it unset and run every case.
bool small_op_tests_only();

// Uniform in [low, high] from a fixed seed, with values too close to zero pushed away from it
// (|v| >= 0.05 * max(|low|, |high|)), so no test passes by multiplying zeros.
std::vector<float> random_values(std::size_t count, std::uint32_t seed, float low = -1.0f, float high = 1.0f);

std::vector<double> to_double(std::span<const float> values);
std::vector<float> to_float(std::span<const double> values);

// The normwise relative error max|actual - expected| / max|expected| (or the absolute error
// when expected is all below 1e-30).
double relative_error(std::span<const float> actual, std::span<const float> expected);
double relative_error(std::span<const double> actual, std::span<const double> expected);

// Catch2 check of relative_error(actual, expected) <= tolerance; `what` names the quantity.
// `scale`, when larger than max|expected|, is the denominator instead: for a sum whose terms
// cancel (a gradient added to another), the error is relative to the size of the terms.
void require_close(std::span<const float> actual, std::span<const float> expected, double tolerance,
                   const std::string& what, double scale = 0);
void require_close(std::span<const double> actual, std::span<const double> expected, double tolerance,
                   const std::string& what, double scale = 0);
// max |values[i]|
double max_abs(std::span<const float> values);

// d loss / d x by central differences: (loss(x + h e_i) - loss(x - h e_i)) / 2h for every i.
// `loss` may read x only through its argument.
std::vector<double> numeric_gradient(const std::function<double(std::span<const double>)>& loss, std::vector<double> x,
                                     double h = 1e-6);

// sum(weights[i] * values[i]): the scalar loss whose gradient w.r.t. values is weights.
double weighted_sum(std::span<const double> values, std::span<const double> weights);

// Device tensors for a test: declare shapes, then fill from host vectors and read back.
class TestTensors {
public:
    TensorId add(const std::string& name, const Shape& shape) { return plan_.add(name, shape); }
    void allocate();
    Tensor operator[](TensorId id) const { return (*arena_)[id]; }
    void write(TensorId id, std::span<const float> values);
    std::vector<float> read(TensorId id);

private:
    TensorPlan plan_;
    std::unique_ptr<TensorArena> arena_;
};

}  // namespace bps::test
