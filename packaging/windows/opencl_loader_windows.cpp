// Windows: OpenCL.dll is delay-loaded (packaging/windows/windows.cmake), because it comes with a
// GPU driver and a laptop may have none. Before the first OpenCL call the engine asks this file
// whether the DLL can be loaded; when it cannot, the studio opens and explains how to get a
// driver, instead of Windows refusing to start the program.
#include "engine/cl/opencl_loader.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

namespace bps::cl {

std::string missing_opencl_loader() {
    // Loaded once and kept: the delay-load helper then finds it already in the process. Only
    // the system folders are searched, where drivers install it: a stray OpenCL.dll beside the
    // program or in the working folder must not stand in for the driver's.
    static const bool present =
        LoadLibraryExW(L"OpenCL.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32) != nullptr;
    if (present) return {};
    return "OpenCL.dll was not found: no GPU driver with OpenCL is installed";
}

}  // namespace bps::cl
