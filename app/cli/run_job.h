#pragma once
// A training job run to its end from a CLI command: the main thread waits, turning the first
// Ctrl-C into a clean stop of the job, and a failure becomes the exception main() prints.
#include <functional>
#include <stdexcept>

#include "app/cli/project_argument.h"
#include "engine/session/training_job.h"

namespace bps::cli {

// A job for `task` on the opened project, on the --device flag's device, else BACKPROP_DEVICE's,
// else the project's, else the best one. BACKPROP_WATCHDOG_SECONDS replaces the watchdog's bound
// (60 s; 0 turns it off) for devices slower than that per batch.
session::JobSetup job_setup(session::JobTask task, OpenedProject opened, const std::optional<std::string>& device_flag);

// The device stopped answering and the watchdog ended the job: main() prints it and ends the
// process at once, since the job's worker is stuck inside the driver and exiting normally would
// wait for it.
class DeviceHungError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `events.finished` is the job's own; the others are passed on (`failed` before this throws). Throws
// device::NoDeviceError when there is no OpenCL platform, std::runtime_error with the failure's
// message otherwise. `interrupted` runs (on the main thread) when Ctrl-C asks the job to stop.
session::JobResult run_job(session::JobSetup setup, session::JobEvents events,
                           const std::function<void()>& interrupted = {});

// --lr's value, as train and resume take it: UsageError outside train::learning_rate_range, with
// every digit given ("not 10.0000001", never "not 10").
void check_learning_rate(const std::optional<double>& rate);

// What `backprop train` and `backprop resume` share: runs the training job, printing its facts,
// progress and epochs, and what was saved. Returns the exit status.
// With `run_folder`, a project file's run is also recorded in a new folder beside it, as the
// studio records its runs (session/run_recorder.h), with its weights, checkpoint and evaluation.
int run_training(session::JobSetup setup, bool run_folder);

}  // namespace bps::cli
