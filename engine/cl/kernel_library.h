#pragma once
// Builds the engine's own programs (every kernels/*.cl) for one device: what start-up and
// `backprop cache warm` do, and what the cold/warm build-time figures measure.
#include <functional>
#include <string>
#include <string_view>
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

// `options(name)` gives each program's build options: the device's tuning (device/kernel_tuning.h)
// where the programs are to be the ones the runtime uses.
std::vector<ProgramBuild> build_engine_programs(const Context& context, KernelCache* cache,
                                                const std::function<std::string(std::string_view)>& options = {});

}  // namespace bps::cl
