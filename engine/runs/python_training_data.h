#pragma once
// The data part of the training scripts (training_script.h), in Python with numpy only, so the
// PyTorch and the Keras script read the same images the studio reads: a catalogue dataset from the
// same files (IDX, CIFAR binary batches) in the folder the studio uses, or the same image folder;
// the same validation split, drawn with the engine's own generator (mt19937_64 and draw_below,
// datasets/feeding.h) so it holds out the very same images; normalisation computed as
// datasets::compute_normalization does; and the augmentation's meaning (random crop with zero
// padding, horizontal flip; the random draws differ).
#include <string>

#include "engine/project/project.h"
#include "engine/runs/model_card.h"

namespace bps::session {

// Python source defining the dataset's constants and: default_data_folder(), load_data(folder)
// (images as float32 N x C x H x W in [0, 1] and int64 labels, for the training and the test
// split; an image folder has no test split), split_train_validation(count, fraction, seed),
// compute_normalization(images), normalize(images, mean, stddev) and augment(images, rng).
// Needs `import gzip, math, os, sys` , `from pathlib import Path` and `import numpy as np`.
std::string python_training_data(const project::Project& project, const ModelCard& card);

}  // namespace bps::session
