#include "engine/runs/saved_weights.h"

#include <new>
#include <string>

#include "engine/base/build_info.h"
#include "engine/io/keras_layout.h"
#include "engine/model/graph_analysis.h"

namespace bps::session {

namespace {

model::GraphAnalysis analysis_for(const project::Project& project, const datasets::ImageShape& shape) {
    return model::analyse_graph(project::project_network(project, shape));
}

}  // namespace

std::optional<project::Project> embedded_project(const io::WeightsFile& contents, const std::filesystem::path& file) {
    if (contents.project.empty()) return std::nullopt;
    try {
        return project::parse_project(contents.project, file.string());
    } catch (const project::ProjectError& error) {
        throw io::WeightsFileError(file, std::string("holds a project that cannot be read: ") + error.what());
    } catch (const std::bad_alloc&) {
        throw io::WeightsFileError(file, "holds a project of " + std::to_string(contents.project.size()) +
                                             " bytes, which needs more memory to read than this computer can give");
    }
}

SavedWeights read_saved_weights(const std::filesystem::path& file) {
    SavedWeights weights;
    weights.file = file;
    weights.contents = io::read_weights_file(file);
    if (weights.contents.written_by_us) weights.card = parse_model_card(weights.contents.model_card, file.string());
    weights.project = embedded_project(weights.contents, file);
    // The model card and the network must agree; a card that does not fit its own network is the
    // weights file's fault, not the images' or the dataset's, which later checks would blame.
    if (weights.card && weights.project) {
        const ModelCard& card = *weights.card;
        const model::GraphReport report =
            project::project_report(*weights.project, card.shape, static_cast<int>(card.class_names.size()));
        if (!report.ok())
            throw io::WeightsFileError(file, "says its network was trained on " + card.shape.to_string() +
                                                 " images in " + std::to_string(card.class_names.size()) +
                                                 " classes, which the network it holds cannot take (" +
                                                 report.problems.front().message +
                                                 "); the file is damaged, so save the weights again");
        // The image shape decides the weights' shapes (a Dense after a Flatten, a first Conv2D).
        try {
            weights_for_network(weights, *weights.project, card.shape);
        } catch (const io::WeightsFileError& error) {
            throw io::WeightsFileError(file, "says its network was trained on " + card.shape.to_string() +
                                                 " images, which its own weights do not fit (" + error.problem() +
                                                 "); the file is damaged, so save the weights again");
        }
    }
    return weights;
}

const ModelCard& card_of(const SavedWeights& weights) {
    if (!weights.card)
        throw io::WeightsFileError(weights.file,
                                   "does not say which images and classes it was trained on (it was written by "
                                   "another program); predicting needs weights saved by Backprop Studio");
    return *weights.card;
}

project::Project project_of(const SavedWeights& weights) {
    if (!weights.project)
        throw io::WeightsFileError(weights.file,
                                   weights.contents.written_by_us
                                       ? "holds no project (it was saved by an earlier Backprop Studio); open the "
                                         "project it was trained with instead"
                                       : "holds no project (it was written by another program); open a project with "
                                         "the same network and load these weights into it");
    return *weights.project;
}

void check_weights_fit(const SavedWeights& weights, const DataFacts& facts) {
    if (!weights.card) return;
    const datasets::ImageShape& trained = weights.card->shape;
    if (trained.channels != facts.shape.channels || trained.height != facts.shape.height ||
        trained.width != facts.shape.width)
        throw io::WeightsFileError(weights.file, "was trained on " + trained.to_string() + " images but " +
                                                     facts.title + " has " + facts.shape.to_string() + " images");
    if (weights.card->class_names.size() != facts.class_count)
        throw io::WeightsFileError(weights.file, "was trained on " + std::to_string(weights.card->class_names.size()) +
                                                     " classes but " + facts.title + " has " +
                                                     std::to_string(facts.class_count));
}

std::vector<io::NamedArray> weights_for_network(const SavedWeights& weights, const project::Project& project,
                                                const datasets::ImageShape& shape) {
    if (weights.contents.layout == io::WeightsFile::Layout::format1) return weights.contents.format1_arrays;
    return io::from_keras_layout(analysis_for(project, shape), weights.contents.layers, weights.file);
}

io::WeightsFile trained_weights_file(const project::Project& project, const ModelCard& card,
                                     std::span<const io::NamedArray> arrays, const std::filesystem::path& file) {
    io::WeightsFile contents;
    contents.layers = io::to_keras_layout(analysis_for(project, card.shape), arrays, file);
    contents.model_card = model_card_json(card);
    contents.project = project::project_to_json(project);
    contents.program_version = program_version();
    return contents;
}

void save_trained_weights(const std::filesystem::path& file, const project::Project& project, const ModelCard& card,
                          std::span<const io::NamedArray> arrays) {
    io::save_weights_file(file, trained_weights_file(project, card, arrays, file));
}

}  // namespace bps::session
