#include "engine/bench/device_microbenchmarks.h"

#include <algorithm>
#include <cmath>

#include "engine/bench/stopwatch.h"
#include "engine/cl/error.h"
#include "engine/ops/gemm.h"
#include "engine/train/random.h"

namespace bps::bench {

namespace {
// The kernels this file launches (kernels/elementwise.cl), named once.
const ops::KernelId fill_kernel{"elementwise", "fill"};

// Runs `timed` (which waits for the device itself) until about `seconds` have passed, at least 3
// and at most 200 times; returns each run's milliseconds.
template <typename Timed>
std::vector<double> repeat_for(double seconds, Timed timed) {
    std::vector<double> times;
    const Clock::time_point start = Clock::now();
    while (times.size() < 3 || (times.size() < 200 && milliseconds_since(start) < 1000 * seconds))
        times.push_back(timed());
    return times;
}

bool is_gpu_like(const device::DeviceDescription& device) {
    return device.kind != device::DeviceKind::Cpu;
}

// Large enough that a copy takes far longer than its launch, small enough for a laptop's memory.
std::size_t copy_size(const device::DeviceDescription& device) {
    std::size_t bytes = is_gpu_like(device) ? std::size_t{256} << 20 : std::size_t{64} << 20;
    bytes = std::min<std::size_t>(bytes, device.max_allocation_bytes / 2);
    bytes = std::min<std::size_t>(bytes, device.global_memory_bytes / 8);
    return bytes / 64 * 64;
}

void measure_copy(ops::Runtime& runtime, double seconds, DeviceMicrobenchmarks& result) {
    const std::size_t bytes = copy_size(runtime.device());
    if (bytes == 0) return;
    cl::Buffer from(runtime.context(), bytes), to(runtime.context(), bytes);
    auto copy = [&] {
        const Clock::time_point start = Clock::now();
        cl::check(clEnqueueCopyBuffer(runtime.queue().get(), from.get(), to.get(), 0, 0, bytes, 0, nullptr, nullptr),
                  "clEnqueueCopyBuffer", "a copy of " + std::to_string(bytes) + " bytes");
        runtime.finish();
        return milliseconds_since(start);
    };
    copy();  // the first touch of the memory maps its pages
    const double ms = median(repeat_for(seconds, copy));
    result.copy_bytes = bytes;
    result.copy_gb_per_s = ms > 0 ? 2.0 * static_cast<double>(bytes) / (ms * 1e6) : 0;
}

SgemmRate measure_sgemm(ops::Runtime& runtime, int n, double seconds) {
    const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    train::Random random(static_cast<std::uint64_t>(n));
    std::vector<float> a(count), b(count);
    for (float& v : a) v = random.uniform(-1, 1);
    for (float& v : b) v = random.uniform(-1, 1);
    cl::Buffer a_buffer(runtime.context(), count * sizeof(float)), b_buffer(runtime.context(), count * sizeof(float)),
        c_buffer(runtime.context(), count * sizeof(float));
    a_buffer.write(runtime.queue(), a.data(), count * sizeof(float));
    b_buffer.write(runtime.queue(), b.data(), count * sizeof(float));
    const Shape shape{1, 1, n, n};
    const Tensor ta{a_buffer.get(), 0, shape}, tb{b_buffer.get(), 0, shape}, tc{c_buffer.get(), 0, shape};
    const std::size_t size = static_cast<std::size_t>(n);
    auto product = [&] {
        const Clock::time_point start = Clock::now();
        ops::gemm(runtime, size, size, size, 1.0f, {ta, size}, {tb, size}, 0.0f, tc, size, "the SGEMM benchmark");
        runtime.finish();
        return milliseconds_since(start);
    };
    product();  // CLBlast compiles its kernels for the device on the first call
    const std::vector<double> times = repeat_for(seconds, product);

    SgemmRate rate;
    rate.size = n;
    rate.repeats = static_cast<int>(times.size());
    rate.milliseconds = median(times);
    rate.gflops_per_s =
        rate.milliseconds > 0 ? 2.0 * std::pow(static_cast<double>(n), 3) / (rate.milliseconds * 1e6) : 0;
    // A fast wrong answer is no rate: sampled entries against double-precision dot products,
    // relative to the sum of the products' magnitudes (the scale of float32 rounding).
    std::vector<float> c(count);
    c_buffer.read(runtime.queue(), c.data(), count * sizeof(float));
    for (int sample = 0; sample < 32; ++sample) {
        const std::size_t i = random.below(static_cast<std::uint32_t>(n)),
                          j = random.below(static_cast<std::uint32_t>(n));
        const double error = sgemm_entry_error(a, b, c, i, j, size, size);
        if (!(error <= rate.max_relative_error)) rate.max_relative_error = error;
    }
    return rate;
}

}  // namespace

// A kernel that writes one float: what a launch costs the host, with nothing to compute. The
// launches go in bursts of 32, about a training step's worth, with a wait between bursts: a
// driver whose queue fills up makes the host wait for the device, and that would be the device's
// rate for tiny kernels, not the cost of a launch.
LaunchLatency measure_launch_latency(ops::Runtime& runtime) {
    LaunchLatency result;
    cl::Buffer one(runtime.context(), sizeof(float));
    cl::Kernel& fill = runtime.kernel(fill_kernel);
    fill.arg(0, 1).arg(1, 0.0f).arg(2, one);
    runtime.run_in_groups(fill, 1, 1);
    runtime.finish();
    constexpr int bursts = 30, per_burst = 32, waited = 200;
    std::vector<double> per_launch;
    for (int burst = 0; burst < bursts; ++burst) {
        const Clock::time_point start = Clock::now();
        for (int i = 0; i < per_burst; ++i) runtime.run_in_groups(fill, 1, 1);
        per_launch.push_back(1000 * milliseconds_since(start) / per_burst);
        runtime.finish();
    }
    result.enqueue_us = median(per_launch);
    std::vector<double> round_trips;
    for (int i = 0; i < waited; ++i) {
        const Clock::time_point start = Clock::now();
        runtime.run_in_groups(fill, 1, 1);
        runtime.finish();
        round_trips.push_back(1000 * milliseconds_since(start));
    }
    result.enqueue_finish_us = median(round_trips);
    return result;
}

double sgemm_entry_error(std::span<const float> a, std::span<const float> b, std::span<const float> c, std::size_t i,
                         std::size_t j, std::size_t k, std::size_t n) {
    double exact = 0, scale = 0;
    for (std::size_t p = 0; p < k; ++p) {
        const double term = static_cast<double>(a[i * k + p]) * b[p * n + j];
        exact += term;
        scale += std::abs(term);
    }
    return std::abs(c[i * n + j] - exact) / std::max(scale, 1e-30);
}

double DeviceMicrobenchmarks::best_gflops_per_s() const {
    double best = 0;
    for (const SgemmRate& rate : sgemm) best = std::max(best, rate.gflops_per_s);
    return best;
}

std::vector<int> default_sgemm_sizes(const device::DeviceDescription& device) {
    if (is_gpu_like(device)) return {512, 1024, 2048, 4096};
    return {512, 1024, 2048};
}

DeviceMicrobenchmarks measure_device(ops::Runtime& runtime, const MicrobenchmarkOptions& options,
                                     const std::function<void(const std::string&)>& progress) {
    auto tell = [&](const std::string& what) {
        if (progress) progress(what);
    };
    DeviceMicrobenchmarks result;
    tell("bandwidth");
    measure_copy(runtime, options.seconds_per_figure, result);
    const device::DeviceDescription& device = runtime.device();
    for (int n : options.sgemm_sizes.empty() ? default_sgemm_sizes(device) : options.sgemm_sizes) {
        const std::uint64_t bytes = std::uint64_t{4} * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
        if (bytes > device.max_allocation_bytes || 3 * bytes > device.global_memory_bytes / 2) continue;
        tell("SGEMM " + std::to_string(n));
        result.sgemm.push_back(measure_sgemm(runtime, n, options.seconds_per_figure));
    }
    tell("launch latency");
    const LaunchLatency launches = measure_launch_latency(runtime);
    result.enqueue_us = launches.enqueue_us;
    result.enqueue_finish_us = launches.enqueue_finish_us;
    return result;
}

}  // namespace bps::bench
