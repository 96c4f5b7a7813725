#include "engine/session/worker/evaluation.h"

#include <algorithm>
#include <numeric>

#include "datasets/feeding.h"

namespace bps::session {

namespace {
// The samples evaluated, in order: `indices`, or every sample when it is empty.
std::vector<std::size_t> order_of(const datasets::Dataset& dataset, std::span<const std::size_t> indices) {
    std::vector<std::size_t> order(indices.begin(), indices.end());
    if (order.empty()) {
        order.resize(dataset.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
    }
    return order;
}
}  // namespace

Evaluation evaluate(model::Network& network, const datasets::Dataset& dataset, std::span<const std::size_t> indices,
                    const std::function<void()>& each_batch) {
    std::vector<std::size_t> order = order_of(dataset, indices);
    Evaluation result;
    if (order.empty()) return result;
    network.clear_totals();
    datasets::BatchIterator batches(dataset, std::move(order), static_cast<std::size_t>(network.batch_size()));
    datasets::Batch batch;
    while (batches.next(batch)) {
        if (each_batch) each_batch();
        network.evaluate_batch(batch.images, batch.labels);
    }
    const model::Network::Totals totals = network.read_totals();
    network.clear_totals();
    result.samples = totals.samples;
    result.loss = totals.loss_sum / static_cast<double>(totals.samples);
    result.accuracy = totals.correct / static_cast<double>(totals.samples);
    return result;
}

EvaluationWithSamples evaluate_with_samples(model::Network& network, const datasets::Dataset& dataset,
                                            std::span<const std::size_t> indices,
                                            const std::function<void()>& each_batch) {
    if (network.loss_kind() != model::LossKind::softmax_cross_entropy)
        return {evaluate(network, dataset, indices, each_batch), std::nullopt};
    std::vector<std::size_t> order = order_of(dataset, indices);
    const int classes = static_cast<int>(network.output_shape().per_sample());
    std::vector<float> probabilities, losses;
    std::vector<int> labels;
    probabilities.reserve(order.size() * static_cast<std::size_t>(classes));
    losses.reserve(order.size());
    labels.reserve(order.size());
    datasets::BatchIterator batches(dataset, std::move(order), static_cast<std::size_t>(network.batch_size()));
    datasets::Batch batch;
    while (batches.next(batch)) {
        if (each_batch) each_batch();
        const model::Network::SampleOutputs outputs = network.evaluate_samples(batch.images, batch.labels);
        probabilities.insert(probabilities.end(), outputs.probabilities.begin(), outputs.probabilities.end());
        losses.insert(losses.end(), outputs.losses.begin(), outputs.losses.end());
        labels.insert(labels.end(), batch.labels.begin(), batch.labels.end());
    }
    network.clear_totals();
    SampleEvaluation samples = evaluate_probabilities(probabilities, labels, classes, losses);
    const Evaluation overall = samples.overall;
    return {overall, std::move(samples)};
}

std::vector<std::vector<float>> predict_probabilities(model::Network& network, std::span<const float> images,
                                                      std::size_t count) {
    const std::size_t per_image = network.input_shape().per_sample();
    const std::size_t classes = network.output_shape().per_sample();
    std::vector<std::vector<float>> result;
    const std::size_t batch = static_cast<std::size_t>(network.batch_size());
    for (std::size_t first = 0; first < count; first += batch) {
        const std::size_t n = std::min(batch, count - first);
        const std::vector<float> probabilities =
            network.predict(images.subspan(first * per_image, n * per_image), static_cast<int>(n));
        for (std::size_t i = 0; i < n; ++i)
            result.emplace_back(probabilities.begin() + static_cast<std::ptrdiff_t>(i * classes),
                                probabilities.begin() + static_cast<std::ptrdiff_t>((i + 1) * classes));
    }
    return result;
}

std::vector<ClassScore> top_classes(std::span<const float> probabilities, std::size_t k) {
    std::vector<ClassScore> scores;
    for (std::size_t i = 0; i < probabilities.size(); ++i) scores.push_back({static_cast<int>(i), probabilities[i]});
    std::stable_sort(scores.begin(), scores.end(),
                     [](const ClassScore& a, const ClassScore& b) { return a.probability > b.probability; });
    scores.resize(std::min(k, scores.size()));
    return scores;
}

}  // namespace bps::session
