#pragma once
// What checker.cpp shares with the files that run each kind of check. Private to engine/course.
#include <optional>
#include <string>

#include "datasets/dataset.h"
#include "engine/course/checker.h"
#include "engine/model/graph_report.h"

namespace bps::course::detail {

// The project's network checked once for every structure and sanity check of an exercise.
struct NetworkFacts {
    model::NetworkSpec spec;     // with the dataset's input shape
    model::GraphReport report;   // without the class count: output_width checks that itself
    std::optional<int> classes;  // none when an image folder cannot be counted
    std::string data_title;      // "Fashion-MNIST", or the image folder
};
NetworkFacts network_facts(const project::Project& project);

// A result with kind, type and step filled in, status missing.
CheckResult result_for(const std::string& step, const Check& check);
// Sets status failed with the message, the check's `fail` advice appended.
void fail(CheckResult& result, const Check& check, std::string message);
// A network that does not build: fails `result` with the graph's first problem, on its node (or the
// Problems dock), and returns true. Checking or training it would only find the same problem.
bool fail_unbuildable(CheckResult& result, const NetworkFacts& facts);
// Sets status passed with the check's `pass` text, or `fallback` when it has none.
void pass(CheckResult& result, const Check& check, const std::string& fallback);

CheckResult structure_check(const std::string& step, const Check& check, const project::Project& project,
                            const NetworkFacts& facts);
CheckResult sanity_check(const std::string& step, const Check& check, const CheckInput& input,
                         const NetworkFacts& facts);
CheckResult outcome_check(const std::string& step, const Check& check, const Exercise& exercise,
                          const CheckInput& input);
CheckResult interpretation_check(const std::string& step, const Check& check, const CheckInput& input);

// "Dense 'fc1'"
std::string node_text(const model::LayerSpec& layer);
// "83.2%"
std::string percent(double fraction);
// A run as learners know it: its name, else its folder's name.
std::string run_name(const session::RunRecord& run);
// Case-insensitive equality, for names typed by hand.
bool same_words(const std::string& a, const std::string& b);

}  // namespace bps::course::detail
