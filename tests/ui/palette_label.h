// The label of the first palette entry that places a layer of `type`, so the editor's tests do not
// depend on how the palette words it.
#pragma once

#include <string>

#include "engine/model/network_spec.h"
#include "engine/project/network_edits.h"

namespace bps::test {

inline std::string palette_label(model::LayerType type) {
    for (const project::PaletteEntry& entry : project::palette())
        if (entry.layer.type == type) return entry.label;
    return {};
}

}  // namespace bps::test
