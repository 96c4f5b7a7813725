#pragma once
// What a run keeps after every epoch so that the Inside view can replay its learning: the filters
// of every Conv2D layer (and the BatchNorm arrays among them), the first Dense layer's weights when
// it reads the image itself, and the figures (mean, deviation, histogram) of every parameter and of
// its gradient. Not the other Dense layers: they are most of a network's size and a learner does
// not look at them as pictures. Each epoch is one small HDF5 file in the run's folder,
//     RUN/replay/epoch-000.h5   the weights before training (no gradients yet)
//     RUN/replay/epoch-001.h5   after the first epoch, and so on
// written through io/atomic_file.h, so that a crash mid-write never leaves a damaged epoch.
// A run kept before replays existed has no replay folder: replay_epochs() is empty.
//
//     const auto epochs = session::replay_epochs(run_folder);              // {0, 1, 2, ...}
//     const auto replay = session::read_epoch_replay(run_folder, 2);        // after epoch 2
//     const auto weights = session::replay_weights(final_weights, replay);  // for a Predictor
//     const auto exact = session::replayed_layers(project, card, replay);   // whose outputs are epoch 2's
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/runs/inside_figures.h"
#include "engine/runs/model_card.h"

namespace bps::session {

// A replay file that cannot be written or read; what() is "FILE: problem".
class ReplayError : public std::runtime_error {
public:
    ReplayError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

struct ParameterFigures {
    std::string name;                       // "conv1.weight"
    ValueFigures weights;                   // of the values
    std::optional<ValueFigures> gradients;  // of the last batch's gradient; none before training
                                            // and for running statistics
};

struct EpochReplay {
    int epoch = 0;  // the weights after this many epochs (0: before training)
    // The arrays kept (replay_keeps says which), in the engine's names and axes.
    std::vector<io::NamedArray> kept;
    // Every parameter of the network, kept or not, in io::download_parameters' order.
    std::vector<ParameterFigures> figures;
};

// Whether a replay keeps the arrays of layer `layer` of `project` on `card`'s images: every Conv2D
// and BatchNorm layer, and a Dense layer whose input is the image (through Flatten only).
bool replay_keeps(const project::Project& project, const ModelCard& card, const std::string& layer);

// The replay of `epoch` from a run's parameters and their gradients (empty gradients: before
// training, or not known).
EpochReplay make_epoch_replay(const project::Project& project, const ModelCard& card, int epoch,
                              std::span<const io::NamedArray> weights, std::span<const io::NamedArray> gradients);

// RUN/replay/epoch-NNN.h5 for `replay.epoch`, written atomically (the folder made when missing).
// Throws ReplayError naming the file.
void write_epoch_replay(const std::filesystem::path& run_folder, const EpochReplay& replay);
std::filesystem::path epoch_replay_file(const std::filesystem::path& run_folder, int epoch);

// The epochs a run's folder has a replay of, in order; empty when it has none (a run kept before
// replays existed). Files that are not replays are ignored.
std::vector<int> replay_epochs(const std::filesystem::path& run_folder);
// Throws ReplayError naming the file when it is missing or damaged.
EpochReplay read_epoch_replay(const std::filesystem::path& run_folder, int epoch);

// `final_weights` (a run's whole set) with the arrays the replay kept put in their place: what a
// session::Predictor shows the replayed epoch with.
std::vector<io::NamedArray> replay_weights(std::span<const io::NamedArray> final_weights, const EpochReplay& replay);

// The layers (execution order) whose outputs depend only on arrays the replay kept: on them a
// predictor made from replay_weights() shows the replayed epoch exactly. The layers after the
// first Dense layer that was not kept are not among them.
std::vector<std::string> replayed_layers(const project::Project& project, const ModelCard& card,
                                         const EpochReplay& replay);

}  // namespace bps::session
