#pragma once
// What a device can do at best, measured the way the engine uses it: buffer copy bandwidth,
// CLBlast SGEMM rates, and the host cost of a kernel launch. `backprop bench` sets a training
// step's FLOP/s and bytes/s against these to say how much of the device a step uses.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/ops/runtime.h"

namespace bps::bench {

struct SgemmRate {
    int size = 0;                   // n of an n x n x n product
    double gflops_per_s = 0;        // 2 n^3 / the median time
    double milliseconds = 0;        // the median time of one product, waited for
    int repeats = 0;                // timed products
    double max_relative_error = 0;  // of sampled entries against a double-precision dot product
};

struct DeviceMicrobenchmarks {
    std::size_t copy_bytes = 0;    // size of the copied buffer
    double copy_gb_per_s = 0;      // (read + write) bytes / s of clEnqueueCopyBuffer, 1e9 bytes per GB
    std::vector<SgemmRate> sgemm;  // one per size asked for that fits the device
    double enqueue_us = 0;         // host time per launch of a tiny kernel, in bursts of 32 (median)
    double enqueue_finish_us = 0;  // a tiny kernel's launch and the wait for it (median)

    // The best SGEMM rate (the device's practical peak); 0 with none measured.
    double best_gflops_per_s() const;
};

struct MicrobenchmarkOptions {
    std::vector<int> sgemm_sizes;     // empty: default_sgemm_sizes for the device
    double seconds_per_figure = 0.5;  // each figure repeats until about this long (at least 3 times)
};

// 512, 1024 and 2048; and 4096 on GPUs and accelerators.
std::vector<int> default_sgemm_sizes(const device::DeviceDescription& device);

// The host time of launching a tiny kernel: in bursts of 32 (a training step's worth, waited
// for between bursts), and one launch with the wait for it; medians, in microseconds.
struct LaunchLatency {
    double enqueue_us = 0;
    double enqueue_finish_us = 0;
};
LaunchLatency measure_launch_latency(ops::Runtime& runtime);

// Entry (i, j) of C = A B (row-major, A m x k, B k x n) against a double-precision dot product,
// relative to the sum of the products' magnitudes (the scale of float32 rounding); NaN for a C
// that is not a number, so that a max over entries taken with !(e <= max) stays NaN and fails.
double sgemm_entry_error(std::span<const float> a, std::span<const float> b, std::span<const float> c, std::size_t i,
                         std::size_t j, std::size_t k, std::size_t n);

// A sampled SGEMM entry off by more than this relative error (float32 sums of n products of
// values in [-1, 1]) means the device computes wrong results.
constexpr double sgemm_tolerance = 1e-3;

// `progress` is told what is measured next ("bandwidth", "SGEMM 1024", "launch latency").
// Throws cl::ClError when the device fails, naming the call.
DeviceMicrobenchmarks measure_device(ops::Runtime& runtime, const MicrobenchmarkOptions& options,
                                     const std::function<void(const std::string&)>& progress = {});

}  // namespace bps::bench
