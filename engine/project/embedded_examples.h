#pragma once
// The example projects compiled into the program (tutorials/projects/*.json), defined by a source
// that engine/CMakeLists.txt generates with cmake/embed_files.cmake. Private to engine/project.
#include <string_view>
#include <vector>

namespace bps::project {

struct EmbeddedExample {
    std::string_view name;  // the file name without .json: "mlp"
    std::string_view text;
};

// In the order the build lists them.
const std::vector<EmbeddedExample>& embedded_examples();

}  // namespace bps::project
