#pragma once
// A project as a training script for the frameworks a learner meets next, so that a network that
// outgrows one laptop can train on a GPU, several GPUs or a cluster with the frameworks' own
// distributed engines:
//   pytorch_training_script: PyTorch; `python train.py` on one device, `torchrun` with
//     DistributedDataParallel on several processes, GPUs or machines;
//   keras_training_script: Keras with tf.distribute.MirroredStrategy (one machine, several GPUs).
// Both build the same layers under the same names with the same initialisers, read the same data
// with the same validation split, normalisation and augmentation (python_training_data.h), train
// with the same optimiser, schedule, loss, epochs, batch size and seed, and save the weights in
// Keras's layout with the model card and the project inside, as the studio saves them
// (engine/io/weights_file.h), so `backprop evaluate`, `predict`, `train --weights` and the studio
// read the result.
#include <string>

#include "engine/project/project.h"
#include "engine/runs/model_card.h"

namespace bps::session {

// `weights_file` empty: the script starts from the project's initialisers; otherwise the weights
// file it loads first, relative to the script's own folder unless absolute. card.normalization is
// ignored: the script computes the normalisation from the training split when the project asks
// for it, as the studio does. Throws model::ModelError when the network cannot work on card.shape.
std::string pytorch_training_script(const project::Project& project, const ModelCard& card,
                                    const std::string& weights_file);
std::string keras_training_script(const project::Project& project, const ModelCard& card,
                                  const std::string& weights_file);

}  // namespace bps::session
