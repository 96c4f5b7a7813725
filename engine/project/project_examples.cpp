// The example projects that ship inside the program, read from the texts the build embeds.
#include <stdexcept>

#include "engine/project/embedded_examples.h"
#include "engine/project/project.h"

namespace bps::project {

std::vector<std::string> example_names() {
    std::vector<std::string> names;
    for (const EmbeddedExample& example : embedded_examples()) names.emplace_back(example.name);
    return names;
}

std::string example_text(std::string_view name) {
    for (const EmbeddedExample& example : embedded_examples())
        if (example.name == name) return std::string(example.text);
    std::string choices;
    const std::vector<std::string> names = example_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) choices += i + 1 == names.size() ? " and " : ", ";
        choices += names[i];
    }
    throw std::invalid_argument("unknown example project '" + std::string(name) + "'; the examples are " + choices);
}

Project example_project(std::string_view name) {
    return parse_project(example_text(name), "example project '" + std::string(name) + "'");
}

}  // namespace bps::project
