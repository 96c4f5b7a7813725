// The checks that need training: sanity (a few batches on a device, through a SanityRunner) and
// outcome (the run's receipt and history; never its training accuracy).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/base/number_text.h"
#include "engine/course/check_parts.h"

namespace bps::course::detail {

namespace {

std::string two_decimals(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

void output_node(CheckResult& result, const NetworkFacts& facts) {
    if (!facts.report.output) return;
    result.node = facts.spec.layers[static_cast<std::size_t>(*facts.report.output)].name;
    result.point_at = "node:" + result.node;
}

void first_loss(CheckResult& result, const Check& check, const CheckInput& input, const NetworkFacts& facts) {
    const SanityRunner::FirstLoss first = input.sanity->first_batch_loss(input.project);
    const double tolerance = check.value.value_or(0.3);
    const double expected = std::log(static_cast<double>(first.classes));
    const std::string near = "ln(" + std::to_string(first.classes) + ") = " + two_decimals(expected);
    result.expected = "near " + near + " (within " + session::format_rate(tolerance) + ")";
    result.found = two_decimals(first.loss);
    if (std::isfinite(first.loss) && std::fabs(first.loss - expected) <= tolerance) {
        pass(result, check,
             "The first loss is " + result.found + ", near " + near + ": the network starts from a fair guess.");
        return;
    }
    fail(result, check,
         "Expected a first loss " + result.expected + "; found " + result.found +
             ". A first loss far from ln(classes) means the outputs are not a fair guess at the start: check the "
             "initialisers and the last layer.");
    output_node(result, facts);
}

void overfit_subset(CheckResult& result, const Check& check, const CheckInput& input) {
    const int images = check.images.value_or(50);
    const int epochs = check.epochs.value_or(20);
    const int batch_size = check.batch_size.value_or(10);
    const SanityRunner::Overfit overfit = input.sanity->overfit_subset(input.project, images, epochs, batch_size);
    result.expected =
        "100% training accuracy on " + std::to_string(images) + " images within " + std::to_string(epochs) + " epochs";
    result.found = percent(overfit.accuracy);
    // Every image right: anything less than all of them is not learnt by heart.
    if (overfit.accuracy >= 1.0 - 1e-9) {
        pass(result, check,
             "The network learnt all " + std::to_string(images) + " images by heart in " +
                 std::to_string(overfit.epochs) + " epochs: it can learn.");
        return;
    }
    fail(result, check,
         "Expected " + result.expected + "; found " + result.found + ". A network that cannot learn " +
             std::to_string(images) +
             " images by heart has a bug or too little capacity: check the learning rate "
             "and the layers.");
    result.point_at = "control:learning_rate";
}

// The best validation accuracy among the first `epochs` epochs (all when none), and its epoch.
struct Best {
    double accuracy = -1;
    int epoch = 0;
};

void validation_accuracy(CheckResult& result, const Check& check, const Exercise& exercise, const CheckInput& input) {
    if (!input.run) {
        result.message = "Train the project, then Check.";
        result.point_at = "dock:train";
        return;
    }
    const session::RunRecord& run = *input.run;
    const double wanted = check.value.value_or(0);
    const std::string within = check.epochs ? " within " + std::to_string(*check.epochs) + " epochs" : "";
    result.expected = "at least " + percent(wanted) + " validation accuracy" + within;
    if (run.receipt.training.seed != exercise.seed) {
        result.found = "seed " + std::to_string(run.receipt.training.seed);
        fail(result, check,
             "Expected a run at the exercise's seed " + std::to_string(exercise.seed) + "; " + run_name(run) +
                 " trained at seed " + std::to_string(run.receipt.training.seed) + ". Set the seed back to " +
                 std::to_string(exercise.seed) + " and train again.");
        result.point_at = "control:seed";
        return;
    }
    const bool any_validation = std::any_of(run.history.epochs.begin(), run.history.epochs.end(),
                                            [](const session::EpochPoint& point) { return point.validation_accuracy; });
    if (!any_validation && !run.receipt.validation) {
        result.found = "no validation figures";
        fail(result, check,
             "Expected " + result.expected + "; " + run_name(run) +
                 " held no validation images: set a validation fraction and train again.");
        result.point_at = "control:validation_fraction";
        return;
    }
    // EpochPoint::position is epoch + 1 for the 0-based epoch: the 1-based epoch number.
    Best best;
    for (const session::EpochPoint& point : run.history.epochs) {
        const int epoch = static_cast<int>(std::lround(point.position));
        if (!point.validation_accuracy || (check.epochs && epoch > *check.epochs)) continue;
        if (*point.validation_accuracy > best.accuracy) best = Best{*point.validation_accuracy, epoch};
    }
    if (best.accuracy < 0) {
        result.found = "no finished epoch";
        fail(result, check, "Expected " + result.expected + "; " + run_name(run) + " finished no epoch.");
        result.point_at = "dock:train";
        return;
    }
    result.found = percent(best.accuracy) + " (best, epoch " + std::to_string(best.epoch) + ")";
    if (best.accuracy + 1e-12 >= wanted) {
        pass(result, check,
             "Reached " + percent(best.accuracy) + " validation accuracy at epoch " + std::to_string(best.epoch) + ".");
        return;
    }
    fail(result, check, "Expected " + result.expected + "; found " + result.found + ".");
    result.point_at = "tab:training";
}

// The heading code_export.cpp writes at the top of every script it exports.
std::string script_heading(const std::string& project_name) {
    return "The network of the Backprop Studio project " +
           nlohmann::json(project_name).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + ", in ";
}

std::string head_of(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string text(4096, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

void exported_script(CheckResult& result, const Check& check, const CheckInput& input) {
    // Which framework: "pytorch" or "keras" in `equals`, or either.
    std::string framework;
    if (same_words(check.equals, "pytorch")) framework = "PyTorch";
    if (same_words(check.equals, "keras")) framework = "Keras";
    const std::string what = framework.empty() ? "a Python script" : "a " + framework + " script";
    result.expected = what + " exported from project '" + input.project.name + "'";
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::path(input.source).parent_path();
    if (input.source.empty() || !std::filesystem::is_regular_file(input.source, error)) {
        result.message = "Save the project, then export its trained network beside the project file.";
        result.point_at = "tab:training";
        return;
    }
    const std::string heading = script_heading(input.project.name) + framework;
    const std::filesystem::path where = folder.empty() ? std::filesystem::path(".") : folder;
    for (const auto& item : std::filesystem::directory_iterator(where, error)) {
        if (item.path().extension() != ".py" || !item.is_regular_file(error)) continue;
        if (head_of(item.path()).find(heading) == std::string::npos) continue;
        result.found = item.path().filename().string();
        pass(result, check, "Exported " + result.found + ": the network now runs in Python too.");
        return;
    }
    result.found = "none";
    fail(result, check,
         "Expected " + result.expected + " in " + where.string() +
             "; found none. Right-click the run in the run list and choose Export for " +
             (framework.empty() ? std::string("PyTorch") : framework) +
             "…, or use backprop export, and save the script beside the project file.");
    result.point_at = "tab:training";
}

}  // namespace

CheckResult sanity_check(const std::string& step, const Check& check, const CheckInput& input,
                         const NetworkFacts& facts) {
    CheckResult result = result_for(step, check);
    if (fail_unbuildable(result, facts)) return result;
    if (!input.sanity) {
        result.message = "Needs a device: Check trains a few batches for this.";
        result.point_at = "tab:devices";
        return result;
    }
    try {
        if (check.type == "first_loss")
            first_loss(result, check, input, facts);
        else if (check.type == "overfit_subset")
            overfit_subset(result, check, input);
        else
            fail(result, check, "This checker does not know the sanity check '" + check.type + "'.");
    } catch (const std::exception& error) {
        result.status = CheckStatus::failed;
        result.message = error.what();
    }
    return result;
}

CheckResult outcome_check(const std::string& step, const Check& check, const Exercise& exercise,
                          const CheckInput& input) {
    CheckResult result = result_for(step, check);
    if (check.type == "validation_accuracy")
        validation_accuracy(result, check, exercise, input);
    else if (check.type == "exported_script")
        exported_script(result, check, input);
    else
        fail(result, check, "This checker does not know the outcome check '" + check.type + "'.");
    return result;
}

}  // namespace bps::course::detail
