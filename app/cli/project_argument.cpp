#include "app/cli/project_argument.h"

#include <filesystem>

#include "app/cli/arguments.h"

namespace bps::cli {

OpenedProject open_project(const std::optional<std::string>& argument) {
    if (!argument) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    std::error_code error;
    const std::filesystem::path file(*argument);
    if (!std::filesystem::exists(file, error)) {
        for (const std::string& name : project::example_names())
            if (name == *argument) return {project::example_project(name), "example '" + name + "'"};
        throw project::ProjectError(file.string(),
                                    "the file does not exist; the examples that ship with Backprop Studio are mlp, "
                                    "cnn and cifar");
    }
    return {project::read_project(file), file.string()};
}

model::GraphAnalysis check_project(const OpenedProject& opened, const session::DataFacts& facts) {
    try {
        return project::analyse_project(opened.project, facts.shape, static_cast<int>(facts.class_count));
    } catch (const model::ModelError& problem) {
        throw std::runtime_error(opened.source + ": " + problem.what());
    }
}

}  // namespace bps::cli
