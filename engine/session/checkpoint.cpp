#include "engine/session/checkpoint.h"

#include <nlohmann/json.hpp>

namespace bps::session {

namespace {
constexpr const char* kStateFormat = "backprop-studio-training-state";
constexpr int kStateVersion = 1;
}  // namespace

void save_checkpoint(const std::filesystem::path& file, const project::Project& project, const ModelCard& card,
                     std::span<const io::NamedArray> weights, std::span<const io::NamedArray> optimizer_state,
                     const CheckpointPosition& position) {
    io::WeightsFile contents = trained_weights_file(project, card, weights, file);
    const nlohmann::json state = {{"format", kStateFormat},      {"version", kStateVersion},
                                  {"epoch", position.epoch},     {"batch", position.batch},
                                  {"updates", position.updates}, {"learning_rate", position.learning_rate}};
    contents.checkpoint_state = state.dump();
    contents.checkpoint_arrays.assign(optimizer_state.begin(), optimizer_state.end());
    io::save_weights_file(file, contents);
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
    Checkpoint checkpoint;
    checkpoint.weights = read_saved_weights(file);
    const io::WeightsFile& contents = checkpoint.weights.contents;
    if (!contents.is_checkpoint())
        throw io::WeightsFileError(file,
                                   "holds weights but no training state, so training cannot go on from it; it is "
                                   "a weights file (train with '--checkpoint FILE' to keep checkpoints)");
    if (!checkpoint.weights.project)
        throw io::WeightsFileError(file, "is a checkpoint without its project: the file is damaged");
    try {
        const nlohmann::json state = nlohmann::json::parse(contents.checkpoint_state);
        if (state.at("format").get<std::string>() != kStateFormat) throw std::invalid_argument("format");
        const int version = state.at("version").get<int>();
        if (version > kStateVersion)
            throw io::WeightsFileError(file, "holds a training state from a newer Backprop Studio (version " +
                                                 std::to_string(version) + "); this version reads version " +
                                                 std::to_string(kStateVersion));
        checkpoint.position.epoch = state.at("epoch").get<int>();
        checkpoint.position.batch = state.at("batch").get<std::size_t>();
        checkpoint.position.updates = state.at("updates").get<int>();
        checkpoint.position.learning_rate = state.at("learning_rate").get<float>();
        if (checkpoint.position.epoch < 0 || checkpoint.position.updates < 0 ||
            !(checkpoint.position.learning_rate > 0))
            throw std::invalid_argument("range");
    } catch (const io::WeightsFileError&) {
        throw;
    } catch (const std::exception&) {
        throw io::WeightsFileError(file, "has a damaged training state (epoch, batch, updates and learning rate)");
    }
    checkpoint.optimizer_state = contents.checkpoint_arrays;
    return checkpoint;
}

}  // namespace bps::session
