#pragma once
// The results views' tables as CSV for a spreadsheet (RFC 4180: a field with a comma, a quote or
// a line break is quoted and its quotes doubled; lines end with "\n"). Class names are given in
// class order; a class without a name is written as its index. Numbers are written with a '.'
// whatever the locale, shares and figures with 4 decimals.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/runs/confusion_matrix.h"
#include "engine/session/sample_evaluation.h"

namespace bps::session {

// "true \ predicted,<name 0>,...,<name n-1>,total", then one row per true class (its counts and
// its support), then "total" with every column's sum and the number of samples.
std::string confusion_csv(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names);

// "class,precision,recall,f1,support", one row per class (class_figures), then
// "accuracy,,,<correct / total>,<total>" and "chance,,,<1 / classes>,".
std::string class_figures_csv(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names);

// "true,predicted,count,share": the pairs as given (most_confused's order).
std::string confused_pairs_csv(const std::vector<ConfusedPair>& pairs, const std::vector<std::string>& class_names);

// "sample,true,predicted,loss,probability_of_true,probability_of_predicted": the samples listed, in
// the order given (a gallery's). std::out_of_range for an index outside the samples.
std::string samples_csv(const SampleResults& samples, const std::vector<std::size_t>& shown,
                        const std::vector<std::string>& class_names);

}  // namespace bps::session
