#pragma once
// A checkpoint: everything a training run needs to go on exactly where it stopped. It is a weights
// file (Keras's layout, with the model card and the project, so it also predicts, evaluates and
// exports like one) plus the training state: the optimiser's arrays (momentum, Adam's moments), the
// number of updates made (Adam's bias correction and the dropout masks follow it), the epoch and
// the batches of it already trained, and the base learning rate in force. The batch order and the
// augmentation are functions of the project's seed and the epoch, so the position is all the
// generator state there is: a resumed run draws the same batches.
#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/runs/saved_weights.h"

namespace bps::session {

struct CheckpointPosition {
    int epoch = 0;            // the epoch in progress, from 0 (the run's epoch count when it ended)
    std::size_t batch = 0;    // batches of that epoch already trained; 0 at an epoch's start
    int updates = 0;          // optimiser steps made so far
    float learning_rate = 0;  // the base rate in force (the studio can change it during a run)
};

struct Checkpoint {
    SavedWeights weights;                         // the weights, model card and project
    std::vector<io::NamedArray> optimizer_state;  // engine names ("fc1.weight.state0") and dims
    CheckpointPosition position;
};

// Throws io::WeightsFileError when the file cannot be saved.
void save_checkpoint(const std::filesystem::path& file, const project::Project& project, const ModelCard& card,
                     std::span<const io::NamedArray> weights, std::span<const io::NamedArray> optimizer_state,
                     const CheckpointPosition& position);

// Throws io::WeightsFileError for a damaged file, a weights file that is not a checkpoint (with what
// to do instead), or a training state this version cannot read.
Checkpoint read_checkpoint(const std::filesystem::path& file);

// Where a checkpoint stopped and the project it trains: all that continuing needs before the run
// itself reads the checkpoint (the weights and the optimiser's arrays are not read here).
struct CheckpointHeader {
    CheckpointPosition position;
    project::Project project;
};

// read_checkpoint's facts from the file's attributes alone, refused as read_checkpoint refuses
// them; damaged arrays are found when the run reads the whole checkpoint.
CheckpointHeader read_checkpoint_header(const std::filesystem::path& file);

}  // namespace bps::session
