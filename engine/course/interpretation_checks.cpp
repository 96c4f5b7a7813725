// The interpretation checks: questions about the run answered in the views (a pair picked in the
// confusion matrix, a class, a run in the run list). The checker knows the answer from the run's
// own evaluation and history; a wrong answer gets a nudge, never the answer.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "engine/base/number_text.h"
#include "engine/course/check_parts.h"

namespace bps::course::detail {

namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// A class given by name (any case) or by index.
std::optional<int> class_of(const std::string& answer, const std::vector<std::string>& names) {
    const std::string word = trimmed(answer);
    for (std::size_t i = 0; i < names.size(); ++i)
        if (same_words(names[i], word)) return static_cast<int>(i);
    if (!word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        word.size() < 6) {
        const int index = std::stoi(word);
        if (index < static_cast<int>(names.size())) return index;
    }
    return std::nullopt;
}

std::string class_list(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

std::string class_name(const std::vector<std::string>& names, int index) {
    return index >= 0 && index < static_cast<int>(names.size()) ? names[static_cast<std::size_t>(index)]
                                                                : "class " + std::to_string(index);
}

// The evaluation whose test these checks read; check_input has refused a run without one.
const session::SampleEvaluation* test_of(const CheckInput& input) {
    if (!input.evaluation || !input.evaluation->test) return nullptr;
    return &*input.evaluation->test;
}

void needs_a_run(CheckResult& result) {
    result.message = "Train the project, then Check.";
    result.point_at = "dock:train";
}

void most_confused_pair(CheckResult& result, const Check& check, const CheckInput& input) {
    const session::SampleEvaluation* test = test_of(input);
    if (!input.run || !test) return needs_a_run(result);
    const std::vector<std::string>& names = input.evaluation->class_names;
    const session::ConfusionMatrix& confusion = test->confusion;
    const std::vector<session::ConfusedPair> top = session::most_confused(confusion, 1);
    result.expected = "the most-confused pair";
    if (top.empty()) {
        result.message = "This run's test took no image for another class: there is no confused pair to find.";
        return;
    }
    const auto answer = input.answers.find(result.step);
    if (answer == input.answers.end() || trimmed(answer->second).empty()) {
        result.message = "Select the most-confused pair in the Results tab, then Check.";
        result.point_at = "tab:results";
        return;
    }
    result.found = answer->second;
    const auto mark = answer->second.find('>');
    if (mark == std::string::npos) {
        fail(result, check, "Expected a pair of classes as TRUE>PREDICTED; found '" + answer->second + "'.");
        result.point_at = "tab:results";
        return;
    }
    const std::string true_text = answer->second.substr(0, mark), predicted_text = answer->second.substr(mark + 1);
    const std::optional<int> true_class = class_of(true_text, names), predicted = class_of(predicted_text, names);
    if (!true_class || !predicted) {
        fail(result, check,
             "Expected a pair of this run's classes; found '" + trimmed(!true_class ? true_text : predicted_text) +
                 "', which is not one of them (" + class_list(names) + ").");
        result.point_at = "tab:results";
        return;
    }
    const std::size_t count = confusion.count(*true_class, *predicted);
    const std::size_t support = confusion.support(*true_class);
    const std::string pair = class_name(names, *true_class) + " taken for " + class_name(names, *predicted);
    const std::string of = session::format_thousands(count) + " of " + session::format_thousands(support) + " " +
                           class_name(names, *true_class) + " images";
    result.found = pair + " (" + of + ")";
    // Pairs confused as often as the most-confused one are as right as it.
    if (*true_class != *predicted && count == top.front().count) {
        pass(result, check, pair + " is the most-confused pair: " + of + ".");
        return;
    }
    fail(result, check,
         "Expected the most-confused pair; found " + result.found +
             ". Another pair is confused more often: look for the largest count off the diagonal of the confusion "
             "matrix.");
    result.point_at = "tab:results";
}

void least_accurate_class(CheckResult& result, const Check& check, const CheckInput& input) {
    const session::SampleEvaluation* test = test_of(input);
    if (!input.run || !test) return needs_a_run(result);
    const std::vector<std::string>& names = input.evaluation->class_names;
    const std::vector<session::ClassFigures> figures = session::class_figures(test->confusion);
    result.expected = "the class with the lowest recall";
    // Classes with no test images have no recall to compare.
    double lowest = 2;
    for (const session::ClassFigures& figure : figures)
        if (figure.support > 0) lowest = std::min(lowest, figure.recall);
    const auto answer = input.answers.find(result.step);
    if (answer == input.answers.end() || trimmed(answer->second).empty()) {
        result.message = "Select the least accurate class in the Results tab, then Check.";
        result.point_at = "tab:results";
        return;
    }
    const std::optional<int> picked = class_of(answer->second, names);
    if (!picked || *picked >= static_cast<int>(figures.size())) {
        result.found = answer->second;
        fail(result, check,
             "Expected one of this run's classes; found '" + trimmed(answer->second) + "', which is not one of them (" +
                 class_list(names) + ").");
        result.point_at = "tab:results";
        return;
    }
    const session::ClassFigures& figure = figures[static_cast<std::size_t>(*picked)];
    const std::string name = class_name(names, *picked);
    result.found = name + " (" + percent(figure.recall) + " of its images found)";
    if (figure.support > 0 && figure.recall <= lowest) {
        pass(result, check,
             name + " is the least accurate class: " + percent(figure.recall) + " of its test images were found.");
        return;
    }
    fail(result, check,
         "Expected the class with the lowest recall; found " + name + ", with " + percent(figure.recall) +
             " of its images found. Another class is found less often: compare the confusion matrix's diagonal, row "
             "by row.");
    result.point_at = "tab:results";
}

// pick_run's criteria, each a score per run (higher is more so) or none when the run does not
// qualify.
//   overfits         the run's validation loss at its last epoch minus its lowest validation loss,
//                    for a run whose training loss at the last epoch is below its training loss at
//                    the epoch of that lowest validation loss (training improves while validation
//                    worsens); a rise of 0 or less is no overfitting.
//   diverged         1 for a run that diverged: its receipt's outcome, a failure whose problem says
//                    the training diverged (the command line's), or a "diverged" marker (the
//                    studio pauses a diverging run, and the learner may then stop it).
//   fastest          the median images per second of its batch points.
//   best_validation  its best validation accuracy, over every epoch.
std::optional<double> overfit_rise(const session::RunRecord& run) {
    const session::EpochPoint* lowest = nullptr;
    const session::EpochPoint* last = nullptr;
    for (const session::EpochPoint& point : run.history.epochs) {
        if (!point.validation_loss) continue;
        if (!lowest || *point.validation_loss < *lowest->validation_loss) lowest = &point;
        last = &point;
    }
    if (!lowest || last == lowest) return std::nullopt;
    const double rise = *last->validation_loss - *lowest->validation_loss;
    if (rise <= 0 || last->train_loss >= lowest->train_loss) return std::nullopt;
    return rise;
}

bool diverged(const session::RunRecord& run) {
    if (run.receipt.outcome == "diverged") return true;
    if (run.receipt.problem.find("the training diverged") != std::string::npos) return true;
    return std::any_of(run.history.markers.begin(), run.history.markers.end(),
                       [](const session::RunMarker& marker) { return marker.text.rfind("diverged", 0) == 0; });
}

std::optional<double> median_speed(const session::RunRecord& run) {
    std::vector<double> speeds;
    for (const session::BatchPoint& point : run.history.batches)
        if (point.images_per_second > 0) speeds.push_back(point.images_per_second);
    if (speeds.empty()) return std::nullopt;
    std::sort(speeds.begin(), speeds.end());
    const std::size_t middle = speeds.size() / 2;
    return speeds.size() % 2 == 1 ? speeds[middle] : (speeds[middle - 1] + speeds[middle]) / 2;
}

std::optional<double> best_validation(const session::RunRecord& run) {
    std::optional<double> best;
    for (const session::EpochPoint& point : run.history.epochs)
        if (point.validation_accuracy && (!best || *point.validation_accuracy > *best))
            best = point.validation_accuracy;
    return best;
}

std::optional<double> score(const std::string& criterion, const session::RunRecord& run) {
    if (criterion == "overfits") return overfit_rise(run);
    if (criterion == "diverged") return diverged(run) ? std::optional<double>(1.0) : std::nullopt;
    if (criterion == "fastest") return median_speed(run);
    if (criterion == "best_validation") return best_validation(run);
    return std::nullopt;
}

// What the learner's run shows on the criterion, without giving the answer away.
std::string about(const std::string& criterion, const session::RunRecord& run) {
    const std::optional<double> value = score(criterion, run);
    if (criterion == "overfits")
        return value ? "whose validation loss ends " + session::format_rate(*value) + " above its lowest"
                     : "whose validation loss did not rise above its lowest while its training loss fell";
    if (criterion == "diverged") return "which did not diverge";
    if (criterion == "fastest")
        return value ? "at " + session::format_thousands(static_cast<std::uint64_t>(std::llround(*value))) +
                           " images per second"
                     : "which has no speed on record";
    return value ? "with " + percent(*value) + " best validation accuracy" : "which has no validation accuracy";
}

struct Criterion {
    std::string expected;  // "the run that overfits"
    std::string nobody;    // why no run qualifies: what to do first
    std::string nudge;     // how to find the right run
};

Criterion criterion_words(const std::string& criterion) {
    if (criterion == "overfits")
        return {"the run that overfits",
                "None of the runs overfits yet: train longer, with a validation split, until the validation loss "
                "rises while the training loss falls; then pick that run in the Training tab and Check.",
                "Look for the run whose validation loss climbs while its training loss keeps falling."};
    if (criterion == "diverged")
        return {"the run that diverged",
                "None of the runs diverged yet: train once with a much larger learning rate; then pick that run in "
                "the Training tab and Check.",
                "Look for a run whose loss shot up or became NaN."};
    if (criterion == "fastest")
        return {"the fastest run",
                "No run has a speed on record yet: train at least two runs; then pick the fastest in the Training "
                "tab and Check.",
                "Compare the runs' images per second."};
    return {"the run with the best validation accuracy",
            "No run has validation figures yet: train at least two runs with a validation split; then pick the best "
            "in the Training tab and Check.",
            "Compare the runs' best validation accuracy, not their training accuracy."};
}

void pick_run(CheckResult& result, const Check& check, const CheckInput& input) {
    const Criterion words = criterion_words(check.criterion);
    result.expected = words.expected;
    result.point_at = "tab:training";
    // The best score: several runs may share it (diverged), and each of them is right.
    std::optional<double> best;
    for (const session::RunRecord& run : input.runs)
        if (const std::optional<double> value = score(check.criterion, run); value && (!best || *value > *best))
            best = value;
    if (!best) {
        result.message = words.nobody;
        return;
    }
    const auto answer = input.answers.find(result.step);
    if (answer == input.answers.end() || trimmed(answer->second).empty()) {
        result.message = "Pick " + words.expected + " in the run list of the Training tab, then Check.";
        return;
    }
    const std::string picked = trimmed(answer->second);
    const auto run = std::find_if(input.runs.begin(), input.runs.end(), [&](const session::RunRecord& candidate) {
        return candidate.id() == picked || same_words(candidate.receipt.name, picked);
    });
    if (run == input.runs.end()) {
        result.found = picked;
        fail(result, check,
             "Expected " + words.expected + "; found '" + picked + "', which is not one of this project's runs.");
        return;
    }
    result.found = run_name(*run);
    const std::optional<double> value = score(check.criterion, *run);
    if (value && *value >= *best) {
        pass(result, check, "Right: " + run_name(*run) + " is " + words.expected + ".");
        return;
    }
    fail(result, check,
         "Expected " + words.expected + "; found " + run_name(*run) + ", " + about(check.criterion, *run) + ". " +
             words.nudge);
}

}  // namespace

CheckResult interpretation_check(const std::string& step, const Check& check, const CheckInput& input) {
    CheckResult result = result_for(step, check);
    if (check.type == "most_confused_pair")
        most_confused_pair(result, check, input);
    else if (check.type == "least_accurate_class")
        least_accurate_class(result, check, input);
    else if (check.type == "pick_run")
        pick_run(result, check, input);
    else
        fail(result, check, "This checker does not know the interpretation check '" + check.type + "'.");
    return result;
}

}  // namespace bps::course::detail
