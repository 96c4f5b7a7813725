#include "engine/cl/error.h"

namespace bps::cl {

std::string status_name(cl_int status) {
    switch (status) {
#define BPS_STATUS(name) \
    case name:           \
        return #name;
        BPS_STATUS(CL_SUCCESS)
        BPS_STATUS(CL_DEVICE_NOT_FOUND)
        BPS_STATUS(CL_DEVICE_NOT_AVAILABLE)
        BPS_STATUS(CL_COMPILER_NOT_AVAILABLE)
        BPS_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        BPS_STATUS(CL_OUT_OF_RESOURCES)
        BPS_STATUS(CL_OUT_OF_HOST_MEMORY)
        BPS_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE)
        BPS_STATUS(CL_MEM_COPY_OVERLAP)
        BPS_STATUS(CL_IMAGE_FORMAT_MISMATCH)
        BPS_STATUS(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        BPS_STATUS(CL_BUILD_PROGRAM_FAILURE)
        BPS_STATUS(CL_MAP_FAILURE)
        BPS_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        BPS_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        BPS_STATUS(CL_COMPILE_PROGRAM_FAILURE)
        BPS_STATUS(CL_LINKER_NOT_AVAILABLE)
        BPS_STATUS(CL_LINK_PROGRAM_FAILURE)
        BPS_STATUS(CL_DEVICE_PARTITION_FAILED)
        BPS_STATUS(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        BPS_STATUS(CL_INVALID_VALUE)
        BPS_STATUS(CL_INVALID_DEVICE_TYPE)
        BPS_STATUS(CL_INVALID_PLATFORM)
        BPS_STATUS(CL_INVALID_DEVICE)
        BPS_STATUS(CL_INVALID_CONTEXT)
        BPS_STATUS(CL_INVALID_QUEUE_PROPERTIES)
        BPS_STATUS(CL_INVALID_COMMAND_QUEUE)
        BPS_STATUS(CL_INVALID_HOST_PTR)
        BPS_STATUS(CL_INVALID_MEM_OBJECT)
        BPS_STATUS(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        BPS_STATUS(CL_INVALID_IMAGE_SIZE)
        BPS_STATUS(CL_INVALID_SAMPLER)
        BPS_STATUS(CL_INVALID_BINARY)
        BPS_STATUS(CL_INVALID_BUILD_OPTIONS)
        BPS_STATUS(CL_INVALID_PROGRAM)
        BPS_STATUS(CL_INVALID_PROGRAM_EXECUTABLE)
        BPS_STATUS(CL_INVALID_KERNEL_NAME)
        BPS_STATUS(CL_INVALID_KERNEL_DEFINITION)
        BPS_STATUS(CL_INVALID_KERNEL)
        BPS_STATUS(CL_INVALID_ARG_INDEX)
        BPS_STATUS(CL_INVALID_ARG_VALUE)
        BPS_STATUS(CL_INVALID_ARG_SIZE)
        BPS_STATUS(CL_INVALID_KERNEL_ARGS)
        BPS_STATUS(CL_INVALID_WORK_DIMENSION)
        BPS_STATUS(CL_INVALID_WORK_GROUP_SIZE)
        BPS_STATUS(CL_INVALID_WORK_ITEM_SIZE)
        BPS_STATUS(CL_INVALID_GLOBAL_OFFSET)
        BPS_STATUS(CL_INVALID_EVENT_WAIT_LIST)
        BPS_STATUS(CL_INVALID_EVENT)
        BPS_STATUS(CL_INVALID_OPERATION)
        BPS_STATUS(CL_INVALID_GL_OBJECT)
        BPS_STATUS(CL_INVALID_BUFFER_SIZE)
        BPS_STATUS(CL_INVALID_MIP_LEVEL)
        BPS_STATUS(CL_INVALID_GLOBAL_WORK_SIZE)
        BPS_STATUS(CL_INVALID_PROPERTY)
        BPS_STATUS(CL_INVALID_IMAGE_DESCRIPTOR)
        BPS_STATUS(CL_INVALID_COMPILER_OPTIONS)
        BPS_STATUS(CL_INVALID_LINKER_OPTIONS)
        BPS_STATUS(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef BPS_STATUS
        case -1001:
            return "CL_PLATFORM_NOT_FOUND_KHR";
        default:
            return "unknown OpenCL status " + std::to_string(status);
    }
}

namespace {
std::string describe(const std::string& call, cl_int status, const std::string& involving,
                     const std::string& build_log) {
    std::string text = call + " failed with " + status_name(status) + " (" + std::to_string(status) + ")";
    if (!involving.empty()) text += " for " + involving;
    if (!build_log.empty()) text += "\nbuild log:\n" + build_log;
    return text;
}
}  // namespace

ClError::ClError(std::string call, cl_int status, std::string involving, std::string build_log)
    : std::runtime_error(describe(call, status, involving, build_log)),
      call_(std::move(call)),
      status_(status),
      build_log_(std::move(build_log)) {}

void check(cl_int status, const char* call, std::string_view involving) {
    if (status != CL_SUCCESS) throw ClError(call, status, std::string(involving));
}

}  // namespace bps::cl
