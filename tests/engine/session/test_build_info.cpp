// The facts `backprop --version` and the About box print: the text's layout, and the versions
// compared with what the libraries' headers say.
#include <hdf5.h>

#include <catch2/catch.hpp>

#include "engine/session/library_versions.h"

using namespace bps;

TEST_CASE("build info text puts the version first and one library per line", "[version]") {
    session::BuildInfo info;
    info.version = "1.2.3";
    info.revision = "abcdef0123-dirty";
    info.clblast = "1.5.3";
    info.hdf5 = "1.10.8";
    info.opencl_loader = "OpenCL ICD Loader 2.3.1";
    info.kernel_cache = std::filesystem::path("cache") / "kernels";
    const std::string without_qt =
        "Backprop Studio 1.2.3 (git abcdef0123-dirty)\n"
        "CLBlast: 1.5.3\n"
        "HDF5: 1.10.8\n"
        "OpenCL loader: OpenCL ICD Loader 2.3.1\n"
        "Kernel cache: " +
        info.kernel_cache.string() + "\n";
    CHECK(session::build_info_text(info) == without_qt);
    info.qt = "6.4.2";
    const std::string with_qt = session::build_info_text(info);
    CHECK(with_qt.substr(with_qt.find('\n') + 1, 8) == "Qt: 6.4.");
}

TEST_CASE("build info reports the HDF5 that is loaded and this program's version", "[version]") {
    const session::BuildInfo info = session::build_info("");
    CHECK(info.hdf5 ==
          std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + "." + std::to_string(H5_VERS_RELEASE));
    CHECK(session::program_version() == info.version + " (git " + info.revision + ")");
    CHECK_FALSE(info.revision.empty());
    CHECK_FALSE(info.opencl_loader.empty());
    CHECK(info.kernel_cache.filename() == "kernels");
}
