// Device-side metric totals against host sums, and the non-blocking read-back.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/ops/metrics.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

namespace {
// 0/1 flags from random values: roughly half correct.
std::vector<float> flags(std::size_t count, std::uint32_t seed) {
    std::vector<float> values = test::random_values(count, seed);
    for (float& v : values) v = v > 0 ? 1.0f : 0.0f;
    return values;
}
double sum_of(const std::vector<float>& values) {
    double sum = 0;
    for (float v : values) sum += v;
    return sum;
}
}  // namespace

TEST_CASE("metric totals over two batches match host sums", "[metrics]") {
    const int first = GENERATE(1, 3000);
    const int second = 3;
    test::TestTensors t;
    const TensorId loss_a = t.add("loss a", {first, 1, 1, 1}), correct_a = t.add("correct a", {first, 1, 1, 1});
    const TensorId loss_b = t.add("loss b", {second, 1, 1, 1}), correct_b = t.add("correct b", {second, 1, 1, 1});
    const TensorId totals = t.add("totals", {1, 2, 1, 1});
    t.allocate();
    const std::vector<float> la = test::random_values(first, 31, 0.0f, 3.0f), ca = flags(first, 32);
    const std::vector<float> lb = test::random_values(second, 33, 0.0f, 3.0f), cb = flags(second, 34);
    t.write(loss_a, la);
    t.write(correct_a, ca);
    t.write(loss_b, lb);
    t.write(correct_b, cb);
    t.write(totals, std::vector<float>{7.0f, -5.0f});  // whatever the last epoch left

    ops::Runtime& runtime = test::op_runtime();
    ops::clear_metrics(runtime, t[totals]);
    REQUIRE(t.read(totals) == std::vector<float>{0.0f, 0.0f});
    ops::accumulate_metrics(runtime, t[loss_a], t[correct_a], t[totals]);
    ops::accumulate_metrics(runtime, t[loss_b], t[correct_b], t[totals]);
    const std::vector<float> actual = t.read(totals);
    const std::vector<double> expected_loss{sum_of(la) + sum_of(lb)};
    test::require_close(std::vector<double>{actual[0]}, expected_loss, 1e-6, "total loss");
    CHECK(actual[1] == sum_of(ca) + sum_of(cb));  // whole numbers below 2^24 add exactly

    SECTION("without correct flags only the loss total grows") {
        ops::accumulate_metrics(runtime, t[loss_b], Tensor{}, t[totals]);
        const std::vector<float> after = t.read(totals);
        test::require_close(std::vector<double>{after[0]}, std::vector<double>{expected_loss[0] + sum_of(lb)}, 1e-6,
                            "total loss");
        CHECK(after[1] == actual[1]);
    }
    SECTION("clearing sets both totals back to zero") {
        ops::clear_metrics(runtime, t[totals]);
        CHECK(t.read(totals) == std::vector<float>{0.0f, 0.0f});
    }
}

TEST_CASE("metric totals of the wrong size are refused", "[metrics]") {
    test::TestTensors t;
    const TensorId loss = t.add("loss", {4, 1, 1, 1}), correct = t.add("correct", {5, 1, 1, 1});
    const TensorId totals = t.add("totals", {1, 3, 1, 1}), good_totals = t.add("good totals", {1, 2, 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::clear_metrics(test::op_runtime(), t[totals]),
                        "clear metrics: totals must hold 2 values, not 1x3x1x1");
    REQUIRE_THROWS_WITH(ops::accumulate_metrics(test::op_runtime(), t[loss], t[correct], t[good_totals]),
                        "accumulate metrics: sample losses 4x1x1x1 and correct flags 5x1x1x1 differ in size");
}

TEST_CASE("an asynchronous read returns the tensor once ready", "[metrics]") {
    test::TestTensors t;
    const TensorId x = t.add("x", {1, 2, 1, 1});
    t.allocate();
    const std::vector<float> values{1.5f, -2.25f};
    t.write(x, values);

    ops::AsyncRead read;
    CHECK_FALSE(read.ready());
    REQUIRE_THROWS_AS(read.values(), std::logic_error);
    REQUIRE_THROWS_AS(read.wait(), std::logic_error);

    SECTION("wait blocks until the values arrive") {
        read.start(test::op_runtime(), t[x]);
        CHECK(read.wait() == values);
        CHECK(read.ready());
        CHECK(read.values() == values);
    }
    SECTION("polling alone sees it complete") {
        read.start(test::op_runtime(), t[x]);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!read.ready() && std::chrono::steady_clock::now() < deadline) {
        }
        REQUIRE(read.ready());
        CHECK(read.values() == values);
    }
    SECTION("a second read replaces the first") {
        read.start(test::op_runtime(), t[x]);
        const std::vector<float> other{4.0f, 8.0f};
        t.write(x, other);  // the in-order queue runs the first read before this blocking write
        read.start(test::op_runtime(), t[x]);
        CHECK(read.wait() == other);
    }
}
