#pragma once
// The OpenCL C sources of kernels/*.cl, compiled into the engine at build time.
#include <string_view>
#include <vector>

namespace bps::kernels {

struct EmbeddedKernelSource {
    std::string_view name;    // file name without .cl, e.g. "elementwise"
    std::string_view source;  // the file's full text
};

const std::vector<EmbeddedKernelSource>& embedded_sources();

// The source of kernels/<name>.cl; throws std::out_of_range naming it when absent.
std::string_view embedded_source(std::string_view name);

}  // namespace bps::kernels
