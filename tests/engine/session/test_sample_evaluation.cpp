// Per-sample evaluation: the confusion matrix, precision, recall, F1 and the most-confused pairs
// worked out by hand, and a hand-built network whose outputs are known (a Dense layer with the
// identity as its weights, so each image's class scores are its own pixels) evaluated image by
// image on the device.
#include <catch2/catch.hpp>
#include <cmath>

#include "datasets/dataset.h"
#include "engine/io/network_weights.h"
#include "engine/model/network.h"
#include "engine/session/sample_evaluation.h"
#include "engine/session/worker/evaluation.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using namespace bps::session;

namespace {

// 10 samples of 3 classes: rows are true classes, columns predictions.
//            pred 0  pred 1  pred 2
//   true 0      3       1       0      (4 samples)
//   true 1      2       2       0      (4 samples)
//   true 2      0       1       1      (2 samples)
ConfusionMatrix worked_example() {
    ConfusionMatrix matrix(3);
    const int pairs[][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 1}, {1, 0}, {1, 0}, {1, 1}, {1, 1}, {2, 1}, {2, 2}};
    for (const auto& pair : pairs) matrix.add(pair[0], pair[1]);
    return matrix;
}

}  // namespace

TEST_CASE("a confusion matrix counts by true and predicted class", "[evaluation]") {
    const ConfusionMatrix matrix = worked_example();
    CHECK(matrix.total() == 10);
    CHECK(matrix.correct() == 6);
    CHECK(matrix.count(1, 0) == 2);
    CHECK(matrix.support(0) == 4);
    CHECK(matrix.predicted(1) == 4);
    ConfusionMatrix other(3);
    REQUIRE_THROWS_WITH(other.add(0, 3), "class 3 is outside the 3 classes");
    REQUIRE_THROWS_WITH(other.add(-1, 0), "class -1 is outside the 3 classes");
}

TEST_CASE("precision, recall and F1 per class are those worked out by hand", "[evaluation]") {
    const std::vector<ClassFigures> figures = class_figures(worked_example());
    REQUIRE(figures.size() == 3);
    // Class 0: 3 of the 5 taken for it were (precision 3/5), 3 of its 4 found (recall 3/4).
    CHECK(figures[0].precision == Approx(0.6));
    CHECK(figures[0].recall == Approx(0.75));
    CHECK(figures[0].f1 == Approx(2 * 0.6 * 0.75 / (0.6 + 0.75)));
    CHECK(figures[0].support == 4);
    // Class 1: 2 of 4 taken for it, 2 of its 4.
    CHECK(figures[1].precision == Approx(0.5));
    CHECK(figures[1].recall == Approx(0.5));
    CHECK(figures[1].f1 == Approx(0.5));
    // Class 2: its one prediction was right, 1 of its 2 found.
    CHECK(figures[2].precision == Approx(1.0));
    CHECK(figures[2].recall == Approx(0.5));
    CHECK(figures[2].f1 == Approx(2.0 / 3.0));
    CHECK(figures[2].support == 2);
}

TEST_CASE("a class never predicted and a class with no samples get 0, not a division by zero", "[evaluation]") {
    ConfusionMatrix matrix(3);
    matrix.add(0, 0);
    matrix.add(1, 0);  // class 1 is never predicted; class 2 has no samples and is never predicted
    const std::vector<ClassFigures> figures = class_figures(matrix);
    CHECK(figures[1].precision == 0);
    CHECK(figures[1].recall == 0);
    CHECK(figures[1].f1 == 0);
    CHECK(figures[2].support == 0);
    CHECK(figures[2].recall == 0);
    CHECK(figures[0].precision == Approx(0.5));
}

TEST_CASE("the most-confused pairs are the largest off-diagonal cells, with their share of the class", "[evaluation]") {
    const std::vector<ConfusedPair> pairs = most_confused(worked_example(), 5);
    REQUIRE(pairs.size() == 3);  // only cells with samples
    CHECK(pairs[0].true_class == 1);
    CHECK(pairs[0].predicted == 0);
    CHECK(pairs[0].count == 2);
    CHECK(pairs[0].share == Approx(0.5));
    // Equal counts in row order: 0 taken for 1, then 2 taken for 1.
    CHECK((pairs[1].true_class == 0 && pairs[1].predicted == 1));
    CHECK(pairs[1].share == Approx(0.25));
    CHECK((pairs[2].true_class == 2 && pairs[2].predicted == 1));
    CHECK(pairs[2].share == Approx(0.5));
    CHECK(most_confused(worked_example(), 1).size() == 1);
}

TEST_CASE("evaluating probabilities takes the most probable class and -ln of the label's probability", "[evaluation]") {
    const std::vector<float> probabilities = {0.7f,  0.2f, 0.1f,    // true 0, right
                                              0.1f,  0.3f, 0.6f,    // true 1, taken for 2
                                              0.25f, 0.5f, 0.25f};  // true 1, right
    const std::vector<int> labels = {0, 1, 1};
    const SampleEvaluation result = evaluate_probabilities(probabilities, labels, 3);
    CHECK(result.samples.predicted == std::vector<int>{0, 2, 1});
    CHECK(result.samples.losses[0] == Approx(-std::log(0.7f)));
    CHECK(result.samples.losses[1] == Approx(-std::log(0.3f)));
    CHECK(result.overall.accuracy == Approx(2.0 / 3.0));
    CHECK(result.overall.loss == Approx((-std::log(0.7) - std::log(0.3) - std::log(0.5)) / 3.0).epsilon(1e-6));
    CHECK(result.confusion.count(1, 2) == 1);
    CHECK(result.samples.probabilities_of(1)[2] == 0.6f);
    REQUIRE_THROWS_WITH(evaluate_probabilities(probabilities, std::vector<int>{0, 1}, 3),
                        "9 probabilities for 2 samples of 3 classes");
    REQUIRE_THROWS_WITH(evaluate_probabilities(probabilities, labels, 3, std::vector<float>{1.0f}),
                        "1 losses for 3 samples");
}

TEST_CASE("a hand-built network with known outputs gives the confusion matrix and losses worked out by hand",
          "[evaluation]") {
    // Three pixels, and a Dense layer with the identity as weights: the class scores are the pixels.
    model::NetworkSpec spec;
    spec.input = Shape{1, 3, 1, 1};
    spec.layers = {model::input_layer(), model::flatten("flatten"), model::dense("out", 3)};
    ops::Runtime& runtime = test::op_runtime();
    model::Network network(runtime, spec, 4, train::OptimizerSettings{}, 1);
    const std::vector<io::NamedArray> identity = {{"out.weight", {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}},
                                                  {"out.bias", {3}, {0, 0, 0}}};
    io::upload_parameters(runtime, network, identity, "the identity");

    datasets::Dataset data;
    data.shape = datasets::ImageShape{3, 1, 1};
    data.class_names = {"a", "b", "c"};
    // Six images (two batches of 4 and 2): the largest pixel is the class predicted.
    data.images = {2.0f,  0.5f, -1.0f,  // predicted a, true a
                   0.1f,  1.5f, 0.2f,   // predicted b, true a
                   0.0f,  0.3f, 2.5f,   // predicted c, true c
                   1.0f,  0.9f, 0.0f,   // predicted a, true b
                   -0.5f, 3.0f, 0.5f,   // predicted b, true b
                   0.2f,  0.1f, 0.4f};  // predicted c, true b
    data.labels = {0, 0, 2, 1, 1, 1};
    const EvaluationWithSamples result = evaluate_with_samples(network, data);
    REQUIRE(result.samples);
    const SampleEvaluation& samples = *result.samples;
    CHECK(samples.samples.predicted == std::vector<int>{0, 1, 2, 0, 1, 2});
    // rows true a, b, c; columns predicted a, b, c.
    CHECK(samples.confusion.counts == std::vector<std::size_t>{1, 1, 0, 1, 1, 1, 0, 0, 1});
    CHECK(result.overall.accuracy == Approx(3.0 / 6.0));
    double loss_sum = 0;
    for (std::size_t i = 0; i < 6; ++i) {
        // softmax of the pixels, and its cross-entropy with the label.
        double total = 0;
        for (std::size_t c = 0; c < 3; ++c) total += std::exp(static_cast<double>(data.images[i * 3 + c]));
        for (std::size_t c = 0; c < 3; ++c)
            CHECK(samples.samples.probabilities_of(i)[c] ==
                  Approx(std::exp(static_cast<double>(data.images[i * 3 + c])) / total).epsilon(1e-5));
        const double loss =
            std::log(total) - static_cast<double>(data.images[i * 3 + static_cast<std::size_t>(data.labels[i])]);
        CHECK(samples.samples.losses[i] == Approx(loss).epsilon(1e-5));
        loss_sum += loss;
    }
    CHECK(result.overall.loss == Approx(loss_sum / 6.0).epsilon(1e-5));
    // The same figures as the plain evaluation, which reads only the totals.
    const Evaluation plain = evaluate(network, data);
    CHECK(plain.accuracy == Approx(result.overall.accuracy));
    CHECK(plain.loss == Approx(result.overall.loss).epsilon(1e-5));
}
