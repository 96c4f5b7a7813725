#include "app/cli/project_argument.h"

#include <filesystem>
#include <fstream>

#include "app/cli/arguments.h"
#include "engine/session/saved_weights.h"

namespace bps::cli {

namespace {

// HDF5's signature opens the file (a user block could move it; our files have none).
bool is_hdf5_file(const std::filesystem::path& file) {
    char signature[8] = {};
    std::ifstream in(file, std::ios::binary);
    return in.read(signature, sizeof signature) && std::string(signature, sizeof signature) == "\x89HDF\r\n\x1a\n";
}

}  // namespace

OpenedProject open_project(const std::optional<std::string>& argument) {
    if (!argument) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    std::error_code error;
    const std::filesystem::path file(*argument);
    if (!std::filesystem::exists(file, error)) {
        for (const std::string& name : project::example_names())
            if (name == *argument) return {project::example_project(name), "example '" + name + "'", {}, {}};
        throw project::ProjectError(file.string(),
                                    "the file does not exist; the examples that ship with Backprop Studio are mlp, "
                                    "cnn and cifar");
    }
    if (is_hdf5_file(file)) {
        // A weights file or checkpoint: the project it was trained from travels inside.
        const session::SavedWeights saved = session::read_saved_weights(file);
        return {session::project_of(saved), file.string(), file, file, saved.contents.is_checkpoint()};
    }
    return {project::read_project(file), file.string(), {}, file};
}

model::GraphAnalysis check_project(const OpenedProject& opened, const session::DataFacts& facts) {
    try {
        return project::analyse_project(opened.project, facts.shape, static_cast<int>(facts.class_count));
    } catch (const model::ModelError& problem) {
        throw std::runtime_error(opened.source + ": " + problem.what());
    }
}

}  // namespace bps::cli
