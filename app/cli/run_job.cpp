#include "app/cli/run_job.h"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/terminal.h"
#include "engine/base/number_text.h"
#include "engine/device/device_description.h"
#include "engine/train/optimizer_settings.h"

namespace bps::cli {

session::JobSetup job_setup(session::JobTask task, OpenedProject opened,
                            const std::optional<std::string>& device_flag) {
    session::JobSetup setup;
    setup.task = task;
    // BACKPROP_DEVICE acts as the flag does (a choice for this shell), so it overrides the project's.
    const std::string requested = device::device_request(device_flag);
    setup.device_request = requested.empty() ? opened.project.device : requested;
    setup.project = std::move(opened.project);
    setup.source = std::move(opened.source);
    // A project file (not a weights file it was read from) must never be written over.
    if (opened.weights_file.empty() && !opened.project_file.empty()) setup.project_file = opened.project_file;
    if (const char* bound = std::getenv("BACKPROP_WATCHDOG_SECONDS")) {
        const std::string text = bound;
        if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(text) > 86400)
            throw std::runtime_error(
                "BACKPROP_WATCHDOG_SECONDS must be a whole number of seconds from 0 (no "
                "watchdog) to 86400, not '" +
                text + "'");
        setup.watchdog_limit = std::chrono::seconds(std::stoi(text));
    }
    return setup;
}

session::JobResult run_job(session::JobSetup setup, session::JobEvents events,
                           const std::function<void()>& interrupted) {
    std::optional<session::JobResult> result;
    std::optional<session::JobFailure> failure;
    if (!events.note) events.note = print_note;
    events.finished = [&](const session::JobResult& done) { result = done; };
    events.failed = [&, caller = std::move(events.failed)](const session::JobFailure& problem) {
        failure = problem;
        if (caller) caller(problem);
    };
    {
        session::TrainingJob job(std::move(setup), std::move(events));
        bool stopping = false;
        // A signal handler can only set a flag, so the main thread looks at it between waits.
        while (!job.wait_for(std::chrono::milliseconds(100))) {
            if (interrupt_requested() && !stopping) {
                stopping = true;
                job.stop();
                if (interrupted) interrupted();
            }
        }
    }
    if (failure) {
        if (failure->kind == session::FailureKind::no_device) throw device::NoDeviceError();
        if (failure->worker_stuck) throw DeviceHungError(failure->message);
        throw std::runtime_error(failure->message);
    }
    if (!result) throw std::logic_error("the training job ended without a result");
    return *result;
}

void check_learning_rate(const std::optional<double>& rate) {
    if (rate && !train::learning_rate_accepted(*rate))
        throw UsageError(std::string("--lr needs a learning rate ") + train::learning_rate_range + ", not " +
                         session::format_exact(*rate));
}

}  // namespace bps::cli
