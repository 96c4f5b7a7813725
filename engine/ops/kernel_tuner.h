#pragma once
// The per-device tuner of the engine's own kernels, as CLBlast tunes its routines: at the warm-up
// it times each tile variant the device's kind may use (device::tuning_candidates) on the work of a
// convolution of the reference networks' shape, forward and backward, and keeps the fastest. On a
// GPU that is kernels/conv2d.cl's own kernels; on a CPU the products of kernels/gemm.cl, through
// which CPUs run their convolutions and Dense layers (only gemm.cl is built per variant there:
// PoCL's compiler is the slow part of a CPU's tuning). Today's fixed choice is timed first, so the winner is never
// slower than it on the workload, and the time budget is kept by not starting a variant that would overrun it.
#include <cstddef>
#include <functional>
#include <vector>

#include "engine/cl/device.h"
#include "engine/device/tuning_record.h"

namespace bps::ops {

// The bounds for a whole tuning: 2 s on a GPU, 10 s on a CPU (whose compiler is slower).
double tuning_budget_seconds(const device::DeviceDescription& device);

// How much faster than today's choice (the first candidate) another variant must be to replace it:
// 5%, above the noise of repeated tunings on one machine (docs/performance.md).
extern const double min_gain;

// Times one variant: milliseconds a pass of the workload, after setting `build_seconds` to what
// building its programs took; throws when it cannot be built or run.
using TimeVariant = std::function<double(const device::KernelTuning&, double& build_seconds)>;

// Times candidates in order with `time_variant` (an exception marks the variant as failed, with
// its message) and chooses the fastest, keeping today's unless another is min_gain faster. The
// budget counts `seconds_now()` from the start less the first variant's build (today's programs,
// which the warm-up builds anyway, and which the build after the tuning takes from the driver's own
// program cache where it keeps one, as PoCL and NVIDIA do: TuningRecord::shared_build_seconds); a variant
// starts only while that plus the dearest variant so far (build included) stays within it, and
// the first always runs. When another variant wins, today's is timed once more (budget allowing)
// and the winner must be min_gain faster than the better of its two timings. `timed(done,
// total)` hears each one (the warm-up stops the tuning by throwing from it). A device whose every
// variant failed keeps the first (today's) choice.
device::TuningRecord choose_tuning(const std::vector<device::KernelTuning>& candidates, const TimeVariant& time_variant,
                                   double budget_seconds, const std::function<double()>& seconds_now,
                                   const std::function<void(std::size_t, std::size_t)>& timed = {});

// Tunes `device` for real: each variant built (outside the kernel cache, which keeps only what the
// warm-up builds after the tuning) and timed on the device. The record's date is now.
device::TuningRecord tune_kernels(const cl::DeviceInfo& device,
                                  const std::function<void(std::size_t, std::size_t)>& timed = {});

}  // namespace bps::ops
