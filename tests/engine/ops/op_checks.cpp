#include "tests/engine/ops/op_checks.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "tests/engine/test_device.h"

namespace bps::test {

ops::Runtime& op_runtime() {
    // Never destroyed: its OpenCL objects live until the process ends. Released by a static
    // destructor, they crash Oclgrind (tests/sanitize/oclgrind.sh), whose runtime frees its
    // per-thread API call stack before the static destructors run and then writes to it.
    static ops::Runtime& runtime = *new ops::Runtime(test_device());
    return runtime;
}

bool small_op_tests_only() {
    static const bool small = [] {
        const char* value = std::getenv("BACKPROP_SMALL_OP_TESTS");  // NOLINT(concurrency-mt-unsafe): read once
        return value && std::string(value) == "1";
    }();
    return small;
}

std::vector<float> random_values(std::size_t count, std::uint32_t seed, float low, float high) {
    std::mt19937 generator(seed);
    const float floor = 0.05f * std::max(std::fabs(low), std::fabs(high));
    std::vector<float> values(count);
    for (float& v : values) {
        // mt19937 is specified exactly, so the same seed gives the same inputs everywhere.
        const float unit = static_cast<float>(generator()) / 4294967296.0f;
        v = low + (high - low) * unit;
        if (std::fabs(v) < floor) v = v < 0 ? -floor : floor;
        v = std::clamp(v, low, high);
    }
    return values;
}

std::vector<double> to_double(std::span<const float> values) {
    return {values.begin(), values.end()};
}

std::vector<float> to_float(std::span<const double> values) {
    std::vector<float> result(values.size());
    std::transform(values.begin(), values.end(), result.begin(), [](double v) { return static_cast<float>(v); });
    return result;
}

namespace {
template <typename T>
double relative_error_of(std::span<const T> actual, std::span<const T> expected, double scale = 0) {
    REQUIRE(actual.size() == expected.size());
    double max_difference = 0, max_expected = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double difference = std::fabs(double(actual[i]) - double(expected[i]));
        max_difference = std::isnan(difference) ? INFINITY : std::max(max_difference, difference);
        max_expected = std::max(max_expected, std::fabs(double(expected[i])));
    }
    max_expected = std::max(max_expected, scale);
    return max_expected < 1e-30 ? max_difference : max_difference / max_expected;
}

template <typename T>
void require_close_of(std::span<const T> actual, std::span<const T> expected, double tolerance, const std::string& what,
                      double scale) {
    const double error = relative_error_of(actual, expected, scale);
    std::size_t worst = 0;
    for (std::size_t i = 1; i < actual.size(); ++i)
        if (!(std::fabs(double(actual[i]) - double(expected[i])) <=
              std::fabs(double(actual[worst]) - double(expected[worst]))))
            worst = i;
    INFO(what << ": relative error " << error << " (tolerance " << tolerance << "), worst at index " << worst << ": "
              << (actual.empty() ? 0.0 : double(actual[worst])) << " against "
              << (expected.empty() ? 0.0 : double(expected[worst])));
    CHECK(error <= tolerance);
}
}  // namespace

double relative_error(std::span<const float> actual, std::span<const float> expected) {
    return relative_error_of(actual, expected);
}
double relative_error(std::span<const double> actual, std::span<const double> expected) {
    return relative_error_of(actual, expected);
}
void require_close(std::span<const float> actual, std::span<const float> expected, double tolerance,
                   const std::string& what, double scale) {
    require_close_of(actual, expected, tolerance, what, scale);
}
void require_close(std::span<const double> actual, std::span<const double> expected, double tolerance,
                   const std::string& what, double scale) {
    require_close_of(actual, expected, tolerance, what, scale);
}

double max_abs(std::span<const float> values) {
    double result = 0;
    for (float v : values) result = std::max(result, double(std::fabs(v)));
    return result;
}

std::vector<double> numeric_gradient(const std::function<double(std::span<const double>)>& loss, std::vector<double> x,
                                     double h) {
    std::vector<double> gradient(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double saved = x[i];
        x[i] = saved + h;
        const double plus = loss(x);
        x[i] = saved - h;
        const double minus = loss(x);
        x[i] = saved;
        gradient[i] = (plus - minus) / (2 * h);
    }
    return gradient;
}

double weighted_sum(std::span<const double> values, std::span<const double> weights) {
    REQUIRE(values.size() == weights.size());
    double sum = 0;
    for (std::size_t i = 0; i < values.size(); ++i) sum += values[i] * weights[i];
    return sum;
}

void TestTensors::allocate() {
    ops::Runtime& runtime = op_runtime();
    arena_ = std::make_unique<TensorArena>(runtime.context(), runtime.queue(), plan_);
}

void TestTensors::write(TensorId id, std::span<const float> values) {
    op_runtime().write((*this)[id], values);
}

std::vector<float> TestTensors::read(TensorId id) {
    return op_runtime().read((*this)[id]);
}

}  // namespace bps::test
