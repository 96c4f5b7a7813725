#pragma once
// A learner's project file: the network as a graph (nodes with a type, parameters, a unique name
// and a canvas position; edges between names), the dataset and how it is fed, the training
// hyper-parameters and the device preference. JSON, versioned. Reading keeps the whole document,
// so fields this version does not know (written by a newer minor release or by hand) survive a
// save. Saves are atomic (temporary file, then rename).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/feeding.h"
#include "engine/model/graph_analysis.h"
#include "engine/model/network_spec.h"
#include "engine/train/optimizer_settings.h"
#include "engine/train/schedule.h"

namespace bps::project {

// The format version this build writes; files with a larger version are refused.
constexpr int project_format_version = 1;

struct DatasetSettings {
    std::string name = "fashion-mnist";         // a catalogue id; empty when `folder` is used
    std::string folder;                         // an image folder (one subfolder per class), or empty
    int height = 28, width = 28, channels = 1;  // image folders: the size images are scaled to
    double validation_fraction = 0.1;           // held out of the training split, [0, 1)
    bool normalize = true;                      // per-channel mean/std from the training split
    bool shuffle = true;                        // a new order every epoch
    datasets::Augmentation augmentation;
};

struct TrainingSettings {
    int epochs = 1;
    int batch_size = 64;
    train::OptimizerSettings optimizer;  // learning_rate is the base rate of the schedule
    train::Schedule schedule;
    std::uint64_t seed = 42;
};

struct Project {
    std::string name;
    std::string description;
    // Layer names are the node names; every non-input layer lists its inputs (from the edges),
    // layers are in the file's node order, each with its canvas position. spec.input is filled in
    // from the dataset when known.
    model::NetworkSpec network;
    DatasetSettings dataset;
    TrainingSettings training;
    std::string device;       // a device name or index as `backprop devices` shows; empty: the best one
    nlohmann::json document;  // the file as read (empty for a new project): unknown fields are kept
};

// Any problem with a project file; what() is "FILE: problem", the problem in a learner's words
// ("node 3 ('fc1') has type 'Dense2', which is not a layer type; the types are Input, Dense, ...").
class ProjectError : public std::runtime_error {
public:
    ProjectError(const std::string& source, const std::string& problem);
    const std::string& source() const { return source_; }

private:
    std::string source_;
};

// `source` names the file in messages. Throws ProjectError for damaged JSON (with line and
// column), a missing or newer version, a missing or mistyped field, an unknown layer type or
// option, or an edge naming no node. Graph and shape problems are left to analyse_project.
Project parse_project(std::string_view text, const std::string& source);
// Reads at most max_project_file_bytes: a larger file (or an endless one such as /dev/zero) is
// refused with a ProjectError, as is a missing, unreadable or damaged one.
inline constexpr std::uint64_t max_project_file_bytes = std::uint64_t{16} << 20;
Project read_project(const std::filesystem::path& file);
// Pretty JSON (2-space indent), starting from project.document so unknown fields survive.
std::string project_to_json(const Project& project);
void save_project(const std::filesystem::path& file, const Project& project);

// The project's network with `input` as its input shape.
model::NetworkSpec project_network(const Project& project, const datasets::ImageShape& input);

// The graph checked against the dataset: input shape from the dataset, one output unit per
// class for a classifier (when `classes` is known). Every problem at once, on its node, for the
// editor; throws nothing for a problem of the network.
model::GraphReport project_report(const Project& project, const datasets::ImageShape& input,
                                  std::optional<int> classes);
// The same, throwing model::ModelError with the report's first problem.
model::GraphAnalysis analyse_project(const Project& project, const datasets::ImageShape& input, int classes);

// The example projects that ship inside the program (the reference networks mlp, cnn and cifar
// of shared/bench/REFERENCE.md), by name.
std::vector<std::string> example_names();
// Throws std::invalid_argument listing the names for an unknown one.
std::string example_text(std::string_view name);
Project example_project(std::string_view name);

}  // namespace bps::project
