#include "engine/session/job_events.h"

namespace bps::session {

const char* stage_name(Stage stage) {
    switch (stage) {
        case Stage::preparing:
            return "preparing";
        case Stage::running:
            return "running";
        case Stage::paused:
            return "paused";
        case Stage::evaluating:
            return "evaluating";
        case Stage::finished:
            return "finished";
        case Stage::failed:
            return "failed";
    }
    return "unknown";
}

const char* failure_kind_name(FailureKind kind) {
    switch (kind) {
        case FailureKind::project:
            return "project";
        case FailureKind::data:
            return "data";
        case FailureKind::file:
            return "file";
        case FailureKind::no_device:
            return "no device";
        case FailureKind::device:
            return "device";
        case FailureKind::out_of_device_memory:
            return "out of device memory";
        case FailureKind::diverged:
            return "diverged";
        case FailureKind::internal:
            return "internal";
    }
    return "unknown";
}

}  // namespace bps::session
