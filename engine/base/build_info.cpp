#include "engine/base/build_info.h"

#ifndef BACKPROP_VERSION
#error "BACKPROP_VERSION comes from CMake's project() (engine/CMakeLists.txt)"
#endif

namespace bps::version {
const char* git_revision();  // generated at build time by cmake/git_revision.cmake
}

namespace bps::session {

namespace {

// "0.1.0 (git a1b2c3d4e5)": one spelling for --version's heading, receipts and weights files.
std::string version_with_revision(const std::string& version, const std::string& revision) {
    std::string text = version;
    text += " (git ";
    text += revision;
    text += ")";
    return text;
}

}  // namespace

std::string program_version() {
    return version_with_revision(BACKPROP_VERSION, version::git_revision());
}

std::string program_version_number() {
    return BACKPROP_VERSION;
}

std::string program_revision() {
    return version::git_revision();
}

std::string build_info_text(const BuildInfo& info) {
    std::string text = "Backprop Studio " + version_with_revision(info.version, info.revision) + "\n";
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
