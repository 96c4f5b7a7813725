#include "engine/cl/opencl_loader.h"

// clGetExtensionFunctionAddress is deprecated since OpenCL 1.2, but it is the one call that
// reaches the loader's own functions (ForPlatform goes to a driver).
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#include "engine/cl/opencl.h"

namespace bps::cl {

#ifndef BACKPROP_OPENCL_DELAY_LOADED
std::string missing_opencl_loader() {
    return {};
}
#endif

std::string opencl_loader_description() {
    const std::string missing = missing_opencl_loader();
    if (!missing.empty()) return "none (" + missing + ")";
#if defined(__APPLE__)
    return "the system's OpenCL framework";
#else
    // Both ICD loaders in use (ocl-icd on Linux, Khronos's on Windows) answer this query of
    // ocl-icd's. Its info names: 1 the OpenCL version, 2 the loader's version, 3 its name,
    // 4 its vendor (ocl_icd.h, not installed with the OpenCL headers).
    using LoaderInfo = cl_int (*)(cl_uint, size_t, void*, size_t*);
    const auto info = reinterpret_cast<LoaderInfo>(clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD"));
    if (!info) return "an OpenCL loader that does not report its version";
    const auto text = [info](cl_uint what) -> std::string {
        char value[256] = {};
        if (info(what, sizeof value - 1, value, nullptr) != CL_SUCCESS) return {};
        return value;
    };
    std::string description = text(3);
    if (description.empty()) description = "OpenCL ICD loader";
    if (const std::string version = text(2); !version.empty()) description += " " + version;
    if (const std::string vendor = text(4); !vendor.empty()) description += " (" + vendor + ")";
    if (const std::string opencl = text(1); !opencl.empty()) description += ", " + opencl;
    return description;
#endif
}

}  // namespace bps::cl
