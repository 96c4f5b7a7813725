#include "engine/cl/fault_injection.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "engine/cl/error.h"

namespace bps::cl {

namespace {

struct Armed {
    std::mutex mutex;
    std::optional<Fault> fault;
    std::uint64_t calls = 0;  // at the armed point since it was armed
    bool environment_read = false;
    // Whether a fault may be armed: every launch asks, so an unarmed run pays one atomic load
    // (after the environment's first reading), never the lock.
    std::atomic<bool> maybe_armed{true};
    cl_event gate = nullptr;  // the user event a hanging launch waits on
};

Armed& armed() {
    static Armed state;
    return state;
}

constexpr std::array<std::pair<const char*, FaultPoint>, 7> point_names{{{"enqueue", FaultPoint::enqueue},
                                                                         {"allocation", FaultPoint::allocation},
                                                                         {"build", FaultPoint::build},
                                                                         {"read", FaultPoint::read},
                                                                         {"hang", FaultPoint::hang},
                                                                         {"crash", FaultPoint::crash},
                                                                         {"skip", FaultPoint::skip}}};

// The point where a fault is counted: a hang or a skip among the launches, a crash among the builds.
FaultPoint counted_point(FaultPoint point) {
    if (point == FaultPoint::hang || point == FaultPoint::skip) return FaultPoint::enqueue;
    if (point == FaultPoint::crash) return FaultPoint::build;
    return point;
}

// The statuses a test may ask for by name: the ones drivers give when they run out of something.
constexpr std::array<cl_int, 5> nameable_statuses{CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY,
                                                  CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_BUILD_PROGRAM_FAILURE,
                                                  CL_INVALID_COMMAND_QUEUE};

// Under the lock: the environment's fault, once, unless a test armed one first.
void read_environment(Armed& state) {
    if (state.environment_read) return;
    state.environment_read = true;
    const char* text = std::getenv("BACKPROP_INJECT_FAULT");  // NOLINT(concurrency-mt-unsafe): under the lock
    if (text && !state.fault) state.fault = parse_fault(text);
    state.maybe_armed = state.fault.has_value();
}

}  // namespace

std::optional<Fault> parse_fault(const std::string& text) {
    const std::size_t first = text.find(':');
    if (first == std::string::npos) return std::nullopt;
    Fault fault;
    bool named = false;
    for (const auto& [name, point] : point_names)
        if (text.compare(0, first, name) == 0 && std::string(name).size() == first) {
            fault.point = point;
            named = true;
        }
    if (!named) return std::nullopt;
    if (fault.point == FaultPoint::hang) fault.status = hang_status;
    if (fault.point == FaultPoint::skip) fault.status = skip_status;
    const std::size_t second = text.find(':', first + 1);
    const std::string count =
        text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
    if (count.empty() || count.size() > 18 || count.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    fault.nth = std::stoull(count);
    if (fault.nth == 0) return std::nullopt;
    if (second != std::string::npos) {
        if (counted_point(fault.point) != fault.point) return std::nullopt;  // a hang or crash has no status
        const std::string status = text.substr(second + 1);
        bool known = false;
        for (const cl_int candidate : nameable_statuses)
            if (status_name(candidate) == status) {
                fault.status = candidate;
                known = true;
            }
        if (!known) return std::nullopt;
    }
    return fault;
}

// Under the lock: the hanging launch may run.
void release_gate(Armed& state) {
    if (!state.gate) return;
    clSetUserEventStatus(state.gate, CL_COMPLETE);
    clReleaseEvent(state.gate);
    state.gate = nullptr;
}

void arm_fault(const Fault& fault) {
    Armed& state = armed();
    std::lock_guard lock(state.mutex);
    release_gate(state);
    state.environment_read = true;
    state.fault = fault;
    state.calls = 0;
    state.maybe_armed = true;
}

void disarm_fault() {
    Armed& state = armed();
    std::lock_guard lock(state.mutex);
    state.environment_read = true;
    release_gate(state);
    state.fault.reset();
    state.calls = 0;
    state.maybe_armed = false;
}

std::uint64_t counted_calls() {
    Armed& state = armed();
    std::lock_guard lock(state.mutex);
    return state.calls;
}

cl_int injected_fault(FaultPoint point) {
    Armed& state = armed();
    if (!state.maybe_armed.load(std::memory_order_acquire)) return CL_SUCCESS;
    std::lock_guard lock(state.mutex);
    read_environment(state);
    if (!state.fault) return CL_SUCCESS;
    if (counted_point(state.fault->point) != point) return CL_SUCCESS;
    if (++state.calls != state.fault->nth) return CL_SUCCESS;
    if (state.fault->point == FaultPoint::crash) std::abort();  // as a crashing compiler would
    if (state.fault->point == FaultPoint::hang) return hang_status;
    if (state.fault->point == FaultPoint::skip) return skip_status;
    return state.fault->status;
}

cl_event hang_gate(cl_command_queue queue) {
    Armed& state = armed();
    std::lock_guard lock(state.mutex);
    if (!state.gate) {
        cl_context context = nullptr;
        check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr),
              "clGetCommandQueueInfo", "the queue of an injected hang");
        cl_int status = CL_SUCCESS;
        state.gate = clCreateUserEvent(context, &status);
        check(status, "clCreateUserEvent", "an injected hang");
    }
    return state.gate;
}

void release_hang() {
    Armed& state = armed();
    std::lock_guard lock(state.mutex);
    release_gate(state);
}

}  // namespace bps::cl
