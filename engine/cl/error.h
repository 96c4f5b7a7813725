#pragma once
// Every OpenCL status is checked; a failure becomes a ClError that names the call, the status
// by name and what was involved (kernel, buffer size), so a learner's bug report is useful.
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/cl/opencl.h"
#include "engine/device/device_description.h"

namespace bps::cl {

// "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL status -1234" for codes we do not know.
std::string status_name(cl_int status);

class ClError : public std::runtime_error {
public:
    // call: the OpenCL function, e.g. "clCreateBuffer"; involving: e.g. "buffer of 4096 bytes".
    ClError(std::string call, cl_int status, std::string involving, std::string build_log = {});
    cl_int status() const noexcept { return status_; }
    const std::string& call() const noexcept { return call_; }
    const std::string& build_log() const noexcept { return build_log_; }

private:
    std::string call_;
    cl_int status_;
    std::string build_log_;
};

// Throws ClError unless status is CL_SUCCESS.
void check(cl_int status, const char* call, std::string_view involving = {});

// No OpenCL platform at all: an ordinary state with an explanation, not a crash.

}  // namespace bps::cl
