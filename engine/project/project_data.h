#pragma once
// Where a project's images come from: a catalogue dataset (Fashion-MNIST, MNIST, CIFAR) found on
// this computer, or an image folder with one subfolder per class. The facts (image shape, classes)
// are known without reading any image, so a summary or a check of the project is instant.
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/image_folder.h"
#include "engine/model/network_spec.h"
#include "engine/project/project.h"

namespace bps::session {

struct DataFacts {
    std::string title;  // "Fashion-MNIST", or the folder's path
    datasets::ImageShape shape;
    std::size_t class_count = 0;
};

// Throws std::invalid_argument for an unknown catalogue name, datasets::DatasetError for a
// folder that does not exist.
DataFacts project_data_facts(const project::DatasetSettings& settings);

// Reads the images; an image folder gives a training split only. `skipped` receives the folder's
// unreadable files. Throws datasets::DatasetError (a missing dataset says how to get it).
datasets::DatasetSplits load_project_data(const project::DatasetSettings& settings,
                                          std::vector<datasets::SkippedImage>* skipped = nullptr,
                                          const datasets::ReadProgress& progress = {});

// The images an evaluation of the project uses, in its samples' order (a run's samples.bin): the
// test split, or every image of an image folder, which has no test split. Not normalised: [0, 1],
// for showing them beside the samples' results. Throws as load_project_data.
datasets::Dataset load_evaluated_images(const project::DatasetSettings& settings,
                                        const datasets::ReadProgress& progress = {});

}  // namespace bps::session
