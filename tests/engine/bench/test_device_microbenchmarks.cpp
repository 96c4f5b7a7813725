// Device microbenchmarks on the test device: each figure is measured, and a measured SGEMM is
// checked against a reference rather than trusted.
#include <catch2/catch.hpp>

#include "engine/bench/device_microbenchmarks.h"
#include "engine/bench/step_timing.h"
#include "engine/bench/stopwatch.h"
#include "engine/compare/reference_networks.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

TEST_CASE("microbenchmarks measure copy, correct SGEMMs and launches, and leave out sizes past the device", "[bench]") {
    ops::Runtime& runtime = test::op_runtime();
    bench::MicrobenchmarkOptions options;
    options.seconds_per_figure = 0.05;
    // 1 << 17 squared floats is 64 GiB a matrix: more than any device gives one buffer.
    REQUIRE(std::uint64_t{4} << 34 > runtime.device().max_allocation_bytes);
    options.sgemm_sizes = {64, 129, 1 << 17};
    std::vector<std::string> told;
    const bench::DeviceMicrobenchmarks figures =
        bench::measure_device(runtime, options, [&](const std::string& what) { told.push_back(what); });
    CHECK(told == std::vector<std::string>{"bandwidth", "SGEMM 64", "SGEMM 129", "launch latency"});
    CHECK(figures.copy_bytes > 0);
    CHECK(figures.copy_gb_per_s > 0);
    REQUIRE(figures.sgemm.size() == 2);
    CHECK(figures.sgemm[0].size == 64);
    CHECK(figures.sgemm[1].size == 129);
    for (const bench::SgemmRate& rate : figures.sgemm) {
        CHECK(rate.repeats >= 3);
        CHECK(rate.milliseconds > 0);
        CHECK(rate.gflops_per_s == Approx(2.0 * rate.size * rate.size * rate.size / (rate.milliseconds * 1e6)));
        // Real products of values in [-1, 1]: float32 rounding, far below the tolerance, yet not
        // exactly 0 (a kernel that wrote nothing would be off by 100%).
        CHECK(rate.max_relative_error < bench::sgemm_tolerance);
    }
    CHECK(figures.best_gflops_per_s() == std::max(figures.sgemm[0].gflops_per_s, figures.sgemm[1].gflops_per_s));
    CHECK(figures.enqueue_us > 0);
    CHECK(figures.enqueue_finish_us > 0);
}

TEST_CASE("default SGEMM sizes add 4096 on GPUs only", "[bench]") {
    device::DeviceDescription device;
    device.kind = device::DeviceKind::Cpu;
    CHECK(bench::default_sgemm_sizes(device) == std::vector<int>{512, 1024, 2048});
    device.kind = device::DeviceKind::DiscreteGpu;
    CHECK(bench::default_sgemm_sizes(device) == std::vector<int>{512, 1024, 2048, 4096});
}

TEST_CASE("training throughput is the median of the timed runs of whole steps", "[bench]") {
    bench::StepTimingOptions options;
    options.batch_size = 4;
    options.steps = 2;
    options.runs = 3;
    const bench::StepTiming timing =
        bench::time_training_step(test::op_runtime(), bench::reference_network("mlp"), options);
    CHECK(timing.steps == 2);
    REQUIRE(timing.run_seconds.size() == 3);
    std::vector<double> rates;
    for (double seconds : timing.run_seconds) {
        CHECK(seconds > 0);
        rates.push_back(2 * 4 / seconds);
    }
    CHECK(timing.images_per_s == Approx(bench::median(rates)));
    CHECK(timing.step_ms > 0);
    CHECK(timing.kernels_per_step > 0);
}

TEST_CASE("the median of benchmark figures", "[bench]") {
    CHECK(bench::median({}) == 0);
    CHECK(bench::median({3, 1, 2}) == 2);
    CHECK(bench::median({4, 1, 3, 2}) == 2.5);
}
