#include "engine/runs/checkpoint.h"

#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/base/number_text.h"

namespace bps::session {

namespace {
constexpr const char* kStateFormat = "backprop-studio-training-state";
constexpr int kStateVersion = 1;

// A whole number of the training state in [0, highest]: a fraction or a negative number was once
// cut or clamped silently, and a count at INT_MAX overflowed at the next update.
long long whole_field(const std::filesystem::path& file, const nlohmann::json& state, const char* field,
                      long long highest) {
    const auto at = state.find(field);
    if (at == state.end())
        throw io::WeightsFileError(file, std::string("has a damaged training state: it has no '") + field + "'");
    const bool whole = at->is_number_integer() || at->is_number_unsigned();
    const bool in_range =
        whole && (at->is_number_unsigned() ? at->get<unsigned long long>() <= static_cast<unsigned long long>(highest)
                                           : at->get<long long>() >= 0 && at->get<long long>() <= highest);
    if (!in_range)
        throw io::WeightsFileError(file, std::string("has a damaged training state: '") + field + "' is " + at->dump() +
                                             ", not a whole number from 0 to " + std::to_string(highest));
    return at->get<long long>();
}

// The optimiser's arrays must be finite: an infinite momentum would turn every weight it touches
// into NaN, which the run would then blame on the learning rate.
void check_finite_state(const std::filesystem::path& file, const std::vector<io::NamedArray>& arrays) {
    for (const io::NamedArray& array : arrays)
        for (std::size_t i = 0; i < array.values.size(); ++i)
            if (!std::isfinite(array.values[i]))
                throw io::WeightsFileError(file, "has a damaged training state: the optimiser's array '" + array.name +
                                                     "' holds " + format_rate(array.values[i]) + " at index " +
                                                     std::to_string(i) + ", not a finite number");
}
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

namespace {

// The position in a checkpoint's training state, after the checks every reader makes: a training
// state is there, and so is the project.
CheckpointPosition checked_position(const std::filesystem::path& file, const io::WeightsFile& contents,
                                    bool has_project) {
    if (!contents.is_checkpoint())
        throw io::WeightsFileError(file,
                                   "holds weights but no training state, so training cannot go on from it; it is "
                                   "a weights file (train with '--checkpoint FILE' to keep checkpoints)");
    if (!has_project) throw io::WeightsFileError(file, "is a checkpoint without its project: the file is damaged");
    CheckpointPosition position;
    try {
        const nlohmann::json state = nlohmann::json::parse(contents.checkpoint_state);
        if (state.at("format").get<std::string>() != kStateFormat) throw std::invalid_argument("format");
        const int version = state.at("version").get<int>();
        if (version > kStateVersion)
            throw io::WeightsFileError(file, "holds a training state from a newer Backprop Studio (version " +
                                                 std::to_string(version) + "); this version reads version " +
                                                 std::to_string(kStateVersion));
        position.epoch = static_cast<int>(whole_field(file, state, "epoch", INT_MAX));
        position.batch = static_cast<std::size_t>(whole_field(file, state, "batch", INT_MAX));
        // The run counts on from here: the last count it can hold is INT_MAX.
        position.updates = static_cast<int>(whole_field(file, state, "updates", INT_MAX - 1));
        position.learning_rate = state.at("learning_rate").get<float>();
        if (!(position.learning_rate > 0) || !std::isfinite(position.learning_rate))
            throw io::WeightsFileError(file, "has a damaged training state: 'learning_rate' is " +
                                                 state.at("learning_rate").dump() + ", not a finite number above 0");
    } catch (const io::WeightsFileError&) {
        throw;
    } catch (const std::exception&) {
        throw io::WeightsFileError(file, "has a damaged training state (epoch, batch, updates and learning rate)");
    }
    return position;
}

}  // namespace

Checkpoint read_checkpoint(const std::filesystem::path& file) {
    Checkpoint checkpoint;
    checkpoint.weights = read_saved_weights(file);
    const io::WeightsFile& contents = checkpoint.weights.contents;
    checkpoint.position = checked_position(file, contents, checkpoint.weights.project.has_value());
    check_finite_state(file, contents.checkpoint_arrays);
    checkpoint.optimizer_state = contents.checkpoint_arrays;
    return checkpoint;
}

CheckpointHeader read_checkpoint_header(const std::filesystem::path& file) {
    const io::WeightsFile contents = io::read_weights_file_attributes(file);
    std::optional<project::Project> project = embedded_project(contents, file);
    CheckpointHeader header;
    header.position = checked_position(file, contents, project.has_value());
    header.project = std::move(*project);
    return header;
}

}  // namespace bps::session
