#include "engine/session/build_info.h"

#include "engine/cl/cache_location.h"
#include "engine/cl/opencl_loader.h"
#include "engine/io/hdf5_support.h"
#include "engine/ops/gemm.h"

#ifndef BACKPROP_VERSION
#error "BACKPROP_VERSION comes from CMake's project() (engine/CMakeLists.txt)"
#endif

namespace bps::version {
const char* git_revision();  // generated at build time by cmake/git_revision.cmake
}

namespace bps::session {

std::string program_version() {
    std::string text = BACKPROP_VERSION;
    text += " (git ";
    text += version::git_revision();
    text += ")";
    return text;
}

BuildInfo build_info(const std::string& qt) {
    BuildInfo info;
    info.version = BACKPROP_VERSION;
    info.revision = version::git_revision();
    info.qt = qt;
    info.clblast = ops::clblast_version();
    info.hdf5 = io::hdf5::library_version();
    info.opencl_loader = cl::opencl_loader_description();
    info.kernel_cache = cl::kernel_cache_dir();
    return info;
}

std::string build_info_text(const BuildInfo& info) {
    std::string text = "Backprop Studio ";
    text += info.version;
    text += " (git ";
    text += info.revision;
    text += ")\n";
    const auto line = [&text](const char* name, const std::string& value) {
        text += name;
        text += ": ";
        text += value;
        text += "\n";
    };
    if (!info.qt.empty()) line("Qt", info.qt);
    line("CLBlast", info.clblast);
    line("HDF5", info.hdf5);
    line("OpenCL loader", info.opencl_loader);
    line("Kernel cache", info.kernel_cache.string());
    return text;
}

}  // namespace bps::session
