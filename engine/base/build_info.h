#pragma once
// What a user reports along with a problem: this program's version and git revision, the
// versions of the libraries it runs with, and where its kernel cache is. `backprop --version`,
// the studio's About box, run receipts and weights files all take it from here.
#include <filesystem>
#include <string>

namespace bps::session {

// "0.1.0 (git a1b2c3d4e5)": the version from CMake's project() and the revision built from
// ("unknown" outside a git checkout, "-dirty" with uncommitted changes).
std::string program_version();
std::string program_version_number();  // "0.1.0"
std::string program_revision();        // "a1b2c3d4e5", "unknown", "a1b2c3d4e5-dirty"

struct BuildInfo {
    std::string version;        // "0.1.0"
    std::string revision;       // "a1b2c3d4e5", "unknown"
    std::string qt;             // "" for a program without Qt; the caller knows which Qt it runs
    std::string clblast;        // "1.5.3"
    std::string hdf5;           // "1.10.8", the library loaded, not the headers built with
    std::string opencl_loader;  // "OpenCL ICD Loader 2.3.1 (OCL Icd free software), OpenCL 3.0"
    std::filesystem::path kernel_cache;
};

// The facts themselves: engine/session/library_versions.h asks the libraries.
// One fact per line: "Backprop Studio 0.1.0 (git a1b2c3d4e5)", "Qt: 6.4.2", ...
std::string build_info_text(const BuildInfo& info);

}  // namespace bps::session
