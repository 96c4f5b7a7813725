// libFuzzer target: project files (.json) as text. A file that parses is also written back and
// parsed again, and analysed for a 1x28x28 input and 10 classes, as the editor and `backprop
// summary` do with any file a learner opens.
#include <exception>
#include <string_view>

#include "engine/project/project.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const bps::project::Project project = bps::project::parse_project(text, "fuzz.json");
        (void)bps::project::project_report(project, bps::datasets::ImageShape{1, 28, 28}, 10);
        (void)bps::project::parse_project(bps::project::project_to_json(project), "fuzz-written.json");
    } catch (const std::exception&) {
    }
    return 0;
}
