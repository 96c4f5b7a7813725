#pragma once
// The small evaluated split the sample-selection and results-table tests share.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/session/sample_evaluation.h"

namespace bps::test {

// 8 samples of 3 classes, each a label and its probabilities; the prediction is
// the first most probable class and the loss -ln of the label's probability, so
// equal probabilities of the label give equal losses.
//   sample  label  probabilities      predicted  loss
//     0       0    0.7  0.2  0.1        0        -ln 0.7 = 0.357
//     1       1    0.6  0.3  0.1        0        -ln 0.3 = 1.204
//     2       2    0.1  0.1  0.8        2        -ln 0.8 = 0.223
//     3       1    0.5  0.2  0.3        0        -ln 0.2 = 1.609
//     4       0    0.2  0.2  0.6        2        -ln 0.2 = 1.609
//     5       1    0.1  0.3  0.6        2        -ln 0.3 = 1.204
//     6       2    0.4  0.4  0.2        0        -ln 0.2 = 1.609
//     7       1    0.05 0.9  0.05       1        -ln 0.9 = 0.105
inline session::SampleResults eight_samples() {
    const std::vector<int> labels{0, 1, 2, 1, 0, 1, 2, 1};
    const std::vector<std::vector<float>> probabilities{{0.7f, 0.2f, 0.1f}, {0.6f, 0.3f, 0.1f},  {0.1f, 0.1f, 0.8f},
                                                        {0.5f, 0.2f, 0.3f}, {0.2f, 0.2f, 0.6f},  {0.1f, 0.3f, 0.6f},
                                                        {0.4f, 0.4f, 0.2f}, {0.05f, 0.9f, 0.05f}};
    session::SampleResults samples;
    samples.classes = 3;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::vector<float> &p = probabilities[i];
        samples.labels.push_back(labels[i]);
        samples.predicted.push_back(static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin()));
        samples.losses.push_back(-std::log(p[static_cast<std::size_t>(labels[i])]));
        samples.probabilities.insert(samples.probabilities.end(), p.begin(), p.end());
    }
    return samples;
}

}  // namespace bps::test
