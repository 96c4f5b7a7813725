#include "engine/cl/kernel_library.h"

#include <chrono>

#include "engine/cl/program.h"
#include "kernels/embedded_kernels.h"

namespace bps::cl {

std::vector<ProgramBuild> build_engine_programs(const Context& context, KernelCache* cache,
                                                const std::function<std::string(std::string_view)>& options) {
    std::vector<ProgramBuild> builds;
    for (const kernels::EmbeddedKernelSource& entry : kernels::embedded_sources()) {
        const auto start = std::chrono::steady_clock::now();
        const Program program(context, std::string(entry.name), entry.source,
                              options ? options(entry.name) : std::string(), cache);
        const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
        builds.push_back({std::string(entry.name), program.from_cache(), elapsed.count(), program.cache_note()});
    }
    return builds;
}

}  // namespace bps::cl
