#pragma once
// Which classes a network confuses: the confusion matrix of an evaluated split, precision, recall
// and F1 per class, and the most-confused pairs. Plain values, for the job's reports, the results
// views, `backprop evaluate --confusion` and the course's checks.
#include <cstddef>
#include <vector>

namespace bps::session {

// counts[true * classes + predicted]: how many samples of class `true` were taken for `predicted`.
struct ConfusionMatrix {
    int classes = 0;
    std::vector<std::size_t> counts;

    ConfusionMatrix() = default;
    explicit ConfusionMatrix(int class_count);
    std::size_t count(int true_class, int predicted) const;
    void add(int true_class, int predicted);
    std::size_t total() const;
    std::size_t correct() const;                       // the diagonal
    std::size_t support(int true_class) const;         // the row's sum
    std::size_t predicted(int predicted_class) const;  // the column's sum
    bool operator==(const ConfusionMatrix&) const = default;
};

// Precision: of the samples taken for this class, the share that were; recall: of this class's
// samples, the share found; F1 their harmonic mean. A class never predicted (or absent, or both)
// gets 0 where the share would divide by zero, as scikit-learn's zero_division=0 does.
struct ClassFigures {
    double precision = 0, recall = 0, f1 = 0;
    std::size_t support = 0;
};
std::vector<ClassFigures> class_figures(const ConfusionMatrix& matrix);

// An off-diagonal cell: `count` samples of `true_class` taken for `predicted`, the share of that
// class's samples it is.
struct ConfusedPair {
    int true_class = 0, predicted = 0;
    std::size_t count = 0;
    double share = 0;
};
// The `k` largest off-diagonal cells with at least one sample, largest first (ties: by true
// class, then predicted class).
std::vector<ConfusedPair> most_confused(const ConfusionMatrix& matrix, std::size_t k);

}  // namespace bps::session
