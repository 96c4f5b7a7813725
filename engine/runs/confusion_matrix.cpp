#include "engine/runs/confusion_matrix.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace bps::session {

ConfusionMatrix::ConfusionMatrix(int class_count)
    : classes(class_count), counts(static_cast<std::size_t>(class_count) * static_cast<std::size_t>(class_count), 0) {
    if (class_count < 1) throw std::invalid_argument("a confusion matrix needs at least one class");
}

std::size_t ConfusionMatrix::count(int true_class, int predicted_class) const {
    return counts.at(static_cast<std::size_t>(true_class) * static_cast<std::size_t>(classes) +
                     static_cast<std::size_t>(predicted_class));
}

void ConfusionMatrix::add(int true_class, int predicted_class) {
    if (true_class < 0 || true_class >= classes || predicted_class < 0 || predicted_class >= classes)
        throw std::invalid_argument(
            "class " + std::to_string(true_class < 0 || true_class >= classes ? true_class : predicted_class) +
            " is outside the " + std::to_string(classes) + " classes");
    ++counts[static_cast<std::size_t>(true_class) * static_cast<std::size_t>(classes) +
             static_cast<std::size_t>(predicted_class)];
}

std::size_t ConfusionMatrix::total() const {
    std::size_t sum = 0;
    for (std::size_t count : counts) sum += count;
    return sum;
}

std::size_t ConfusionMatrix::correct() const {
    std::size_t sum = 0;
    for (int c = 0; c < classes; ++c) sum += count(c, c);
    return sum;
}

std::size_t ConfusionMatrix::support(int true_class) const {
    std::size_t sum = 0;
    for (int p = 0; p < classes; ++p) sum += count(true_class, p);
    return sum;
}

std::size_t ConfusionMatrix::predicted(int predicted_class) const {
    std::size_t sum = 0;
    for (int t = 0; t < classes; ++t) sum += count(t, predicted_class);
    return sum;
}

std::vector<ClassFigures> class_figures(const ConfusionMatrix& matrix) {
    std::vector<ClassFigures> figures;
    for (int c = 0; c < matrix.classes; ++c) {
        ClassFigures f;
        const double hits = static_cast<double>(matrix.count(c, c));
        const std::size_t taken = matrix.predicted(c);
        f.support = matrix.support(c);
        f.precision = taken == 0 ? 0.0 : hits / static_cast<double>(taken);
        f.recall = f.support == 0 ? 0.0 : hits / static_cast<double>(f.support);
        f.f1 = f.precision + f.recall == 0 ? 0.0 : 2 * f.precision * f.recall / (f.precision + f.recall);
        figures.push_back(f);
    }
    return figures;
}

std::vector<ConfusedPair> most_confused(const ConfusionMatrix& matrix, std::size_t k) {
    std::vector<ConfusedPair> pairs;
    for (int t = 0; t < matrix.classes; ++t)
        for (int p = 0; p < matrix.classes; ++p) {
            const std::size_t count = matrix.count(t, p);
            if (t == p || count == 0) continue;
            pairs.push_back({t, p, count, static_cast<double>(count) / static_cast<double>(matrix.support(t))});
        }
    // Stable: equal counts keep the row-major order they were found in.
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const ConfusedPair& a, const ConfusedPair& b) { return a.count > b.count; });
    if (pairs.size() > k) pairs.resize(k);
    return pairs;
}

}  // namespace bps::session
