#include "engine/session/library_versions.h"

#include "engine/cl/cache_location.h"
#include "engine/cl/opencl_loader.h"
#include "engine/io/hdf5_support.h"
#include "engine/ops/gemm.h"

namespace bps::session {

BuildInfo build_info(const std::string& qt) {
    BuildInfo info;
    info.version = program_version_number();
    info.revision = program_revision();
    info.qt = qt;
    info.clblast = ops::clblast_version();
    info.hdf5 = io::hdf5::library_version();
    info.opencl_loader = cl::opencl_loader_description();
    info.kernel_cache = cl::kernel_cache_dir();
    return info;
}

}  // namespace bps::session
