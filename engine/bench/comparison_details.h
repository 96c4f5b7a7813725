#pragma once
// Everything a device comparison measured for one planned run, in the measuring code's own types:
// what `backprop bench` prints (its tables and JSON lines), beyond the studio's figures in
// DeviceComparison. Not behind the front door: it brings the device layer.
#include <optional>
#include <string>

#include "engine/bench/device_microbenchmarks.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/bench/step_timing.h"
#include "engine/bench/work_model.h"

namespace bps::bench {

struct ComparisonDetails {
    // The device could not be used at all (skipped, no context, a build failed, its figures
    // failed): why, as the failure said it, and no run was timed on it.
    bool device_failed = false;
    std::string device_error;
    std::optional<DeviceMicrobenchmarks> micro;  // the device's own figures, when measured
    std::optional<StepTiming> timing;            // none when the run failed
    StepWork work;                               // the step's least arithmetic and traffic
    std::optional<FirstBatchTimes> first_batch;  // when cold and warm starts were timed
};

}  // namespace bps::bench
