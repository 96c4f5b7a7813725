#pragma once
// A tiny dataset that a small MLP learns in a few epochs, for tests that train for real: two
// classes of 1x4x4 images, class 1 brighter on the left half and class 0 on the right, with noise.
#include <cstdint>
#include <memory>
#include <random>

#include "datasets/dataset.h"
#include "engine/project/project.h"
#include "engine/session/training_data.h"

namespace bps::test {

inline datasets::Dataset two_class_images(std::size_t count, std::uint32_t seed) {
    datasets::Dataset data;
    data.name = "halves";
    data.shape = datasets::ImageShape{1, 4, 4};
    data.class_names = {"right", "left"};
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> noise(0.0f, 0.6f);
    for (std::size_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(i % 2);
        data.labels.push_back(label);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) {
                const bool bright = (x < 2) == (label == 1);
                data.images.push_back(noise(generator) + (bright ? 0.4f : 0.0f));
            }
    }
    return data;
}

// A small MLP for those images (3 epochs of 12 batches of 16), and its data: 256 training images
// of which a quarter are held out for validation, and 128 test images.
inline project::Project two_class_project(int output_units = 2) {
    project::Project project;
    project.name = "halves";
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc1", 8),
                              model::activation("relu", model::Activation::relu),
                              model::dense("out", output_units, train::Initializer::glorot_uniform)};
    project.training.epochs = 3;
    project.training.batch_size = 16;
    project.training.optimizer.learning_rate = 0.05f;
    project.training.seed = 7;
    project.dataset.validation_fraction = 0.25;
    return project;
}

inline std::shared_ptr<const session::TrainingData> two_class_data() {
    datasets::DatasetSplits splits{two_class_images(256, 1), two_class_images(128, 2)};
    project::DatasetSettings settings;
    settings.validation_fraction = 0.25;
    return std::make_shared<session::TrainingData>(session::prepare_training_data(std::move(splits), settings, 7));
}

}  // namespace bps::test
