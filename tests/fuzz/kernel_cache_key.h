#pragma once
// The one key that the kernel-cache fuzz target loads and the seed writer stores, so the seeds
// are valid entries for it.
#include "engine/kernel_cache/kernel_cache.h"

namespace bps::fuzz {

inline cl::CacheKey fuzz_cache_key() {
    return {"__kernel void fill(__global float* x, float v) { x[get_global_id(0)] = v; }",
            "-cl-std=CL1.2 -DTILE=16",
            "Portable Computing Language",
            "OpenCL 3.0 PoCL 3.1",
            "cpu-haswell-Fuzz CPU",
            "3.1"};
}

}  // namespace bps::fuzz
