#include "kernels/embedded_kernels.h"

#include <stdexcept>
#include <string>

namespace bps::kernels {

std::string_view embedded_source(std::string_view name) {
    for (const EmbeddedKernelSource& entry : embedded_sources())
        if (entry.name == name) return entry.source;
    throw std::out_of_range("no embedded kernel source named '" + std::string(name) + "' (kernels/" +
                            std::string(name) + ".cl)");
}

}  // namespace bps::kernels
