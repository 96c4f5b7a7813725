#pragma once
// A tiny dataset that a small MLP learns in a few epochs, for tests that train for real: two
// classes of 1x4x4 images, class 1 brighter on the left half and class 0 on the right, with noise.
#include <cstdint>
#include <random>

#include "datasets/dataset.h"

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

}  // namespace bps::test
