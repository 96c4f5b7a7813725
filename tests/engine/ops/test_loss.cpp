// Losses against the C++ reference, and the reference's gradients against finite differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/ops/loss.h"
#include "engine/reference/loss.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

namespace {
// Random classes, with every third label set to the row's first maximum so that both correct
// and wrong predictions occur at every batch size.
std::vector<int> labels_for(std::span<const float> logits, int n, int k, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::vector<int> labels(static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s) {
        labels[s] = static_cast<int>(generator() % static_cast<std::uint32_t>(k));
        if (s % 3 == 0) {
            int best = 0;
            for (int j = 1; j < k; ++j)
                if (logits[s * k + j] > logits[s * k + best]) best = j;
            labels[s] = best;
        }
    }
    return labels;
}

struct CrossEntropyResult {
    std::vector<float> dlogits, loss, correct;
};

CrossEntropyResult run_cross_entropy(const std::vector<float>& logits, const std::vector<int>& labels, int n, int k) {
    test::TestTensors t;
    const TensorId z = t.add("logits", {n, k, 1, 1}), y = t.add("labels", {n, 1, 1, 1});
    const TensorId dz = t.add("dlogits", {n, k, 1, 1}), loss = t.add("loss", {n, 1, 1, 1});
    const TensorId correct = t.add("correct", {n, 1, 1, 1});
    t.allocate();
    t.write(z, logits);
    test::op_runtime().write_ints(t[y], labels);
    ops::softmax_cross_entropy(test::op_runtime(), t[z], t[y], t[dz], t[loss], t[correct]);
    return {t.read(dz), t.read(loss), t.read(correct)};
}

CrossEntropyResult reference_cross_entropy(const std::vector<float>& logits, const std::vector<int>& labels, int k) {
    CrossEntropyResult result{std::vector<float>(logits.size()), std::vector<float>(labels.size()),
                              std::vector<float>(labels.size())};
    ref::softmax_cross_entropy<float>(static_cast<std::size_t>(k), logits, labels, result.dlogits, result.loss,
                                      result.correct);
    return result;
}
}  // namespace

TEST_CASE("softmax cross-entropy loss, correct flags and gradient match the reference", "[loss]") {
    const int n = GENERATE(1, 3, 64);
    const int k = GENERATE(2, 10, 7);
    INFO(n << " samples of " << k << " classes");
    const std::vector<float> logits = test::random_values(static_cast<std::size_t>(n * k), 11, -3.0f, 3.0f);
    const std::vector<int> labels = labels_for(logits, n, k, 12);
    const CrossEntropyResult actual = run_cross_entropy(logits, labels, n, k);
    const CrossEntropyResult expected = reference_cross_entropy(logits, labels, k);
    test::require_close(actual.loss, expected.loss, 1e-6, "sample loss");
    CHECK(actual.correct == expected.correct);  // the same comparisons on the same floats
    test::require_close(actual.dlogits, expected.dlogits, 1e-6, "dlogits");
}

TEST_CASE("softmax cross-entropy stays finite and exact for logits near 100", "[loss]") {
    // exp(100) overflows float: only the max-subtracted form gives finite values.
    const int n = 3, k = 7;
    const std::vector<float> logits = test::random_values(static_cast<std::size_t>(n * k), 13, -100.0f, 100.0f);
    const std::vector<int> labels = labels_for(logits, n, k, 14);
    const CrossEntropyResult actual = run_cross_entropy(logits, labels, n, k);
    const CrossEntropyResult expected = reference_cross_entropy(logits, labels, k);
    for (float v : actual.loss) REQUIRE(std::isfinite(v));
    for (float v : actual.dlogits) REQUIRE(std::isfinite(v));
    test::require_close(actual.loss, expected.loss, 1e-6, "sample loss");
    CHECK(actual.correct == expected.correct);
    test::require_close(actual.dlogits, expected.dlogits, 1e-6, "dlogits");

    // The float reference itself against double: stability is not only agreement between two floats.
    std::vector<double> dz(logits.size()), loss(n), correct(n);
    ref::softmax_cross_entropy<double>(k, test::to_double(logits), labels, dz, loss, correct);
    test::require_close(test::to_double(expected.loss), loss, 1e-6, "float reference loss against double");
}

TEST_CASE("a label outside the classes gives a NaN loss and gradient for its sample only", "[loss]") {
    const int n = 3, k = 4;
    const std::vector<float> logits = test::random_values(static_cast<std::size_t>(n * k), 15, -3.0f, 3.0f);
    const std::vector<int> labels{-1, 2, 4};
    const CrossEntropyResult actual = run_cross_entropy(logits, labels, n, k);
    CHECK(std::isnan(actual.loss[0]));
    CHECK(std::isfinite(actual.loss[1]));
    CHECK(std::isnan(actual.loss[2]));
    CHECK(actual.correct[0] == 0.0f);
    CHECK(actual.correct[2] == 0.0f);
    for (int j = 0; j < k; ++j) {
        CHECK(std::isnan(actual.dlogits[j]));
        CHECK(std::isfinite(actual.dlogits[k + j]));
        CHECK(std::isnan(actual.dlogits[2 * k + j]));
    }
}

TEST_CASE("softmax cross-entropy gradient on the reference matches finite differences of the mean loss", "[loss]") {
    const int n = 3, k = 7;
    const std::vector<double> logits = test::to_double(test::random_values(n * k, 16, -3.0f, 3.0f));
    const std::vector<int> labels = labels_for(test::to_float(logits), n, k, 17);
    std::vector<double> dz(logits.size()), loss(n), correct(n);
    ref::softmax_cross_entropy<double>(k, logits, labels, dz, loss, correct);
    const auto mean_loss = [&](std::span<const double> z) {
        std::vector<double> g(z.size()), l(n), c(n);
        ref::softmax_cross_entropy<double>(k, z, labels, g, l, c);
        double sum = 0;
        for (double v : l) sum += v;
        return sum / n;
    };
    test::require_close(dz, test::numeric_gradient(mean_loss, logits), 1e-7, "dlogits against finite differences");
}

TEST_CASE("softmax probabilities match the reference and sum to one", "[loss]") {
    const int n = GENERATE(1, 3, 64);
    const int k = GENERATE(2, 7);
    const std::vector<float> logits = test::random_values(static_cast<std::size_t>(n * k), 18, -100.0f, 100.0f);
    test::TestTensors t;
    const TensorId z = t.add("logits", {n, k, 1, 1}), p = t.add("probabilities", {n, k, 1, 1});
    t.allocate();
    t.write(z, logits);
    ops::softmax(test::op_runtime(), t[z], t[p]);
    std::vector<float> expected(logits.size());
    ref::softmax<float>(static_cast<std::size_t>(k), logits, expected);
    const std::vector<float> actual = t.read(p);
    test::require_close(actual, expected, 1e-6, "probabilities");
    for (int s = 0; s < n; ++s) {
        double sum = 0;
        for (int j = 0; j < k; ++j) sum += actual[s * k + j];
        CHECK(sum == Approx(1.0).margin(1e-6));
    }
}

TEST_CASE("mean squared error loss and gradient match the reference", "[loss]") {
    const Shape shape = GENERATE(Shape{1, 2, 1, 1}, Shape{3, 10, 1, 1}, Shape{64, 7, 1, 1}, Shape{3, 2, 5, 5});
    INFO(shape.to_string());
    const int n = shape.n;
    const std::vector<float> predictions = test::random_values(shape.count(), 21);
    const std::vector<float> targets = test::random_values(shape.count(), 22);
    test::TestTensors t;
    const TensorId p = t.add("predictions", shape), y = t.add("targets", shape), dp = t.add("dpredictions", shape);
    const TensorId loss = t.add("loss", {n, 1, 1, 1});
    t.allocate();
    t.write(p, predictions);
    t.write(y, targets);
    ops::mean_squared_error(test::op_runtime(), t[p], t[y], t[dp], t[loss]);
    std::vector<float> dp_ref(shape.count()), loss_ref(static_cast<std::size_t>(n));
    ref::mean_squared_error<float>(shape.per_sample(), predictions, targets, dp_ref, loss_ref);
    test::require_close(t.read(loss), loss_ref, 1e-6, "sample loss");
    test::require_close(t.read(dp), dp_ref, 1e-6, "dpredictions");
}

TEST_CASE("mean squared error gradient on the reference matches finite differences of the mean loss", "[loss]") {
    const std::size_t n = 3, k = 10;
    const std::vector<double> predictions = test::to_double(test::random_values(n * k, 23));
    const std::vector<double> targets = test::to_double(test::random_values(n * k, 24));
    std::vector<double> dp(n * k), loss(n);
    ref::mean_squared_error<double>(k, predictions, targets, dp, loss);
    const auto mean_loss = [&](std::span<const double> p) {
        std::vector<double> g(n * k), l(n);
        ref::mean_squared_error<double>(k, p, targets, g, l);
        return (l[0] + l[1] + l[2]) / static_cast<double>(n);
    };
    test::require_close(dp, test::numeric_gradient(mean_loss, predictions), 1e-7,
                        "dpredictions against finite differences");
}

TEST_CASE("losses on mismatched shapes are refused with both shapes", "[loss]") {
    test::TestTensors t;
    const TensorId z = t.add("logits", {3, 10, 1, 1}), labels = t.add("labels", {4, 1, 1, 1});
    const TensorId dz = t.add("dlogits", {3, 10, 1, 1}), loss = t.add("loss", {3, 1, 1, 1});
    const TensorId targets = t.add("targets", {3, 9, 1, 1});
    t.allocate();
    REQUIRE_THROWS_WITH(ops::softmax_cross_entropy(test::op_runtime(), t[z], t[labels], t[dz], t[loss], t[loss]),
                        "softmax cross-entropy: logits and labels 3x10x1x1 and 4x1x1x1 do not match");
    REQUIRE_THROWS_WITH(ops::mean_squared_error(test::op_runtime(), t[z], t[targets], t[dz], t[loss]),
                        "mean squared error: predictions and targets 3x10x1x1 and 3x9x1x1 do not match");
}
