#pragma once
// Builds the engine's own programs (every kernels/*.cl) for one device: what start-up and
// `backprop cache warm` do, and what the cold/warm build-time figures measure.
#include <string>
#include <vector>

#include "engine/cl/context.h"

namespace bps::cl {

class KernelCache;

struct ProgramBuild {
    std::string name;         // kernels/<name>.cl
    bool from_cache = false;  // true when a cached binary was used
    double milliseconds = 0;  // wall time of this program's build
    std::string cache_note;   // Program::cache_note(): a wrong cache entry that was replaced
};

std::vector<ProgramBuild> build_engine_programs(const Context& context, KernelCache* cache);

}  // namespace bps::cl
