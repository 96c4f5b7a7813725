#pragma once
// A seam for tests: one chosen OpenCL call fails as a driver's would, so that what the layers
// above do then (stop at a batch boundary, keep the weights, say it in plain words) can be tested
// on any device. Nothing fails unless a test arms a fault, or the environment variable
// BACKPROP_INJECT_FAULT names one for tests that run the CLI: "POINT:N[:STATUS]", e.g.
// "enqueue:200" or "allocation:3:CL_MEM_OBJECT_ALLOCATION_FAILURE" (STATUS defaults to
// CL_OUT_OF_RESOURCES). "hang:N" makes the Nth kernel launch wait, as a kernel that never ends
// would, until release_hang() (or forever, in a CLI test of the watchdog). "crash:N" aborts the
// process at the Nth program build, as a driver's compiler that crashes would. "skip:N" drops the
// Nth kernel launch while reporting success, as a driver that miscompiles a kernel into one that
// does nothing would: the results are wrong and nothing says so (the device self-test must).
#include <cstdint>
#include <optional>
#include <string>

#include "engine/cl/opencl.h"

namespace bps::cl {

// enqueue: a kernel launch; allocation: clCreateBuffer; build: a program built from source;
// read: a copy from the device to the host; hang: a kernel launch that is enqueued but never
// runs (counted with the enqueues); crash: the process dies in a program build (counted with
// the builds); skip: a kernel launch that reports success and does nothing (counted with the
// enqueues).
enum class FaultPoint { enqueue, allocation, build, read, hang, crash, skip };

struct Fault {
    FaultPoint point = FaultPoint::enqueue;
    std::uint64_t nth = 1;  // the nth call at `point` from when the fault is armed fails, and only it
    cl_int status = CL_OUT_OF_RESOURCES;
};

// Replaces any armed fault (also one from the environment); counting starts now. Disarming
// also releases a hang.
void arm_fault(const Fault& fault);
void disarm_fault();

// What injected_fault returns for the launch that must hang, and for the one that must do
// nothing: not OpenCL statuses.
constexpr cl_int hang_status = 1;
constexpr cl_int skip_status = 2;
// The event the hanging launch waits on, created in the queue's context; it completes only when
// release_hang() is called. The caller does not own it.
cl_event hang_gate(cl_command_queue queue);
// Lets the hanging launch run (the device "recovers"); nothing when none hangs.
void release_hang();

// Counts one call at `point` and returns the status it must fail with: the armed status on the
// armed call, else CL_SUCCESS. The device layer calls this just before each such OpenCL call.
cl_int injected_fault(FaultPoint point);

// The calls counted at the armed fault's point since it was armed: a test arms a fault that never
// fires to learn how many calls some work makes, then aims a fault at one of them.
std::uint64_t counted_calls();

// "enqueue:200:CL_OUT_OF_RESOURCES" read as a Fault; nullopt for text that is not one.
std::optional<Fault> parse_fault(const std::string& text);

}  // namespace bps::cl
