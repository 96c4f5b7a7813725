#pragma once
// The PROJECT word of `backprop summary/train/evaluate/predict`: a project file, a weights file or
// checkpoint (which carries the project it was trained from), or the name of an example that ships
// inside the program (mlp, cnn, cifar) when no such file exists.
#include <filesystem>
#include <string>

#include "datasets/dataset.h"
#include "engine/project/project.h"
#include "engine/project/project_data.h"

namespace bps::cli {

struct OpenedProject {
    project::Project project;
    std::string source;  // the file as given, or "example 'cnn'"
    // Set when PROJECT was a weights file: evaluate and predict use its weights unless told otherwise.
    std::filesystem::path weights_file;
    std::filesystem::path project_file;  // the file read, when PROJECT was one
    bool checkpoint = false;             // PROJECT was a checkpoint (a weights file with training state)
};

// Throws project::ProjectError for a damaged file, io::WeightsFileError for a weights file that
// holds no project, UsageError when PROJECT is missing.
OpenedProject open_project(const std::optional<std::string>& argument);

// The project's graph checked against its dataset's shape and classes; a problem becomes a
// std::runtime_error "SOURCE: problem" naming the layer.
model::GraphAnalysis check_project(const OpenedProject& opened, const session::DataFacts& facts);

}  // namespace bps::cli
