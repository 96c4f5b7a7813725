// The one course checker: the input refused before any check, every check of every step in the
// exercise's order, the "change the starter first" rule, and the report as JSON and as text.
#include "engine/course/checker.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <tuple>

#include "datasets/catalogue.h"
#include "engine/course/check_parts.h"

namespace bps::course {

const char* check_status_name(CheckStatus status) {
    switch (status) {
        case CheckStatus::passed:
            return "passed";
        case CheckStatus::failed:
            return "failed";
        case CheckStatus::not_attempted:
            return "not_attempted";
        case CheckStatus::missing:
            return "missing";
    }
    return "missing";
}

bool CheckReport::passed() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const CheckResult& check) { return check.optional || check.status == CheckStatus::passed; });
}

int CheckReport::passed_count() const {
    return static_cast<int>(std::count_if(
        checks.begin(), checks.end(), [](const CheckResult& check) { return check.status == CheckStatus::passed; }));
}

std::string CheckReport::current_step() const {
    for (const CheckResult& check : checks)
        if (!check.optional && check.status != CheckStatus::passed) return check.step;
    return {};
}

namespace detail {

CheckResult result_for(const std::string& step, const Check& check) {
    CheckResult result;
    result.step = step;
    result.kind = check.kind;
    result.type = check.type;
    result.optional = check.optional;
    return result;
}

bool fail_unbuildable(CheckResult& result, const NetworkFacts& facts) {
    if (facts.report.ok()) return false;
    const model::GraphProblem& problem = facts.report.problems.front();
    result.status = CheckStatus::failed;
    result.message = problem.message;
    if (problem.node) {
        result.node = facts.spec.layers[static_cast<std::size_t>(*problem.node)].name;
        result.point_at = "node:" + result.node;
    } else {
        result.point_at = "dock:problems";
    }
    return true;
}

void fail(CheckResult& result, const Check& check, std::string message) {
    result.status = CheckStatus::failed;
    if (!check.fail.empty()) message += " " + check.fail;
    result.message = std::move(message);
}

void pass(CheckResult& result, const Check& check, const std::string& fallback) {
    result.status = CheckStatus::passed;
    result.message = check.pass.empty() ? fallback : check.pass;
}

std::string node_text(const model::LayerSpec& layer) {
    return std::string(model::layer_type_name(layer.type)) + " '" + layer.name + "'";
}

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", fraction * 100.0);
    return text;
}

std::string run_name(const session::RunRecord& run) {
    return run.receipt.name.empty() ? run.id() : run.receipt.name;
}

bool same_words(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace detail

namespace {

// "fashion-mnist", or "folder" for an image folder.
std::string dataset_id(const project::DatasetSettings& dataset) {
    return dataset.folder.empty() ? dataset.name : "folder";
}

// "Fashion-MNIST", "an image folder", or the id itself for one the catalogue does not know.
std::string dataset_title(const std::string& id) {
    if (id == "folder") return "an image folder";
    try {
        return datasets::catalogue_entry(id).title;
    } catch (const std::exception&) {
        return id;
    }
}

std::string dataset_text(const project::DatasetSettings& dataset) {
    return dataset.folder.empty() ? dataset_title(dataset.name) : "the image folder " + dataset.folder;
}

bool same_dataset(const project::DatasetSettings& a, const project::DatasetSettings& b) {
    if (a.folder.empty() != b.folder.empty()) return false;
    if (a.folder.empty()) return detail::same_words(a.name, b.name);
    return std::filesystem::path(a.folder).lexically_normal() == std::filesystem::path(b.folder).lexically_normal();
}

bool needs_evaluation(const Exercise& exercise) {
    for (const Step& step : exercise.steps)
        for (const Check& check : step.checks)
            if (check.type == "most_confused_pair" || check.type == "least_accurate_class") return true;
    return false;
}

void check_run_is_the_projects(const session::RunRecord& run, const CheckInput& input, const std::string& source) {
    const session::RunReceipt& receipt = run.receipt;
    // The studio records an unnamed project's runs under its file's stem.
    const std::string name =
        input.project.name.empty() ? std::filesystem::path(input.source).stem().string() : input.project.name;
    if (receipt.project_name != name)
        throw CourseError(run.folder.string() + ": this run is from project '" + receipt.project_name +
                          "', not from project '" + name + "' (" + source + ")");
    if (!same_dataset(receipt.dataset, input.project.dataset))
        throw CourseError(run.folder.string() + ": this run trained on " + dataset_text(receipt.dataset) +
                          ", but project '" + name + "' (" + source + ") trains on " +
                          dataset_text(input.project.dataset));
}

// Each layer's inputs as indices into the layer list, so that renaming a node is no change.
std::vector<std::vector<long>> input_indices(const model::NetworkSpec& network) {
    std::vector<std::vector<long>> all;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        std::vector<long> inputs;
        if (network.layers[i].inputs.empty() && !network.explicit_inputs && i > 0)
            inputs.push_back(static_cast<long>(i) - 1);
        for (const std::string& name : network.layers[i].inputs) {
            const auto found = std::find_if(network.layers.begin(), network.layers.end(),
                                            [&](const model::LayerSpec& layer) { return layer.name == name; });
            inputs.push_back(found == network.layers.end() ? -1 : found - network.layers.begin());
        }
        all.push_back(std::move(inputs));
    }
    return all;
}

bool same_layer(const model::LayerSpec& a, const model::LayerSpec& b) {
    const auto conv = [](const model::Conv2dGeometry& g) {
        return std::tie(g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.padding);
    };
    const auto pool = [](const model::PoolGeometry& g) { return std::tie(g.size_h, g.size_w, g.stride_h, g.stride_w); };
    return a.type == b.type && a.units == b.units && a.initializer == b.initializer && conv(a.conv) == conv(b.conv) &&
           pool(a.pool) == pool(b.pool) && a.activation == b.activation && a.slope == b.slope && a.rate == b.rate &&
           a.momentum == b.momentum && a.epsilon == b.epsilon;  // names and canvas positions never count
}

bool same_data_settings(const project::DatasetSettings& a, const project::DatasetSettings& b) {
    const auto fields = [](const project::DatasetSettings& d) {
        return std::tie(d.name, d.folder, d.height, d.width, d.channels, d.validation_fraction, d.normalize, d.shuffle,
                        d.augmentation.random_crop, d.augmentation.crop_padding, d.augmentation.horizontal_flip);
    };
    return fields(a) == fields(b);
}

bool same_training(const project::TrainingSettings& a, const project::TrainingSettings& b) {
    const auto fields = [](const project::TrainingSettings& t) {
        const train::OptimizerSettings& o = t.optimizer;
        const train::Schedule& s = t.schedule;
        return std::tie(t.epochs, t.batch_size, t.seed, o.kind, o.learning_rate, o.momentum, o.nesterov, o.weight_decay,
                        o.beta1, o.beta2, o.epsilon, s.kind, s.step_size, s.gamma, s.total_epochs, s.min_rate);
    };
    return fields(a) == fields(b);
}

std::optional<project::Project> starter_of(const Exercise& exercise) {
    std::error_code error;
    if (exercise.starter.empty() || !std::filesystem::is_regular_file(exercise.starter, error)) return std::nullopt;
    try {
        return project::read_project(exercise.starter);
    } catch (const project::ProjectError&) {
        return std::nullopt;  // validate_exercise names a starter that does not open
    }
}

const char* status_word(CheckStatus status) {
    switch (status) {
        case CheckStatus::passed:
            return "PASS";
        case CheckStatus::failed:
            return "FAIL";
        case CheckStatus::not_attempted:
            return "TODO";
        case CheckStatus::missing:
            return "NEED";
    }
    return "NEED";
}

}  // namespace

void check_input(const Exercise& exercise, const CheckInput& input) {
    const std::string source = input.source.empty() ? "project '" + input.project.name + "'" : input.source;
    const std::string project_data = dataset_id(input.project.dataset);
    if (!detail::same_words(project_data, exercise.dataset))
        throw CourseError(source + ": this project trains on " + dataset_title(project_data) + "; exercise '" +
                          exercise.id + "' is for " + dataset_title(exercise.dataset));
    if (input.run) check_run_is_the_projects(*input.run, input, source);
    for (const session::RunRecord& run : input.runs) check_run_is_the_projects(run, input, source);
    if (input.run && needs_evaluation(exercise)) {
        const std::string folder = input.run->folder.string();
        if (!input.evaluation)
            throw CourseError(folder +
                              " has no evaluation.json: this run ended before its test, or is from an older version; "
                              "train again or use Evaluate now in the Results tab");
        if (!input.evaluation->test)
            throw CourseError(folder +
                              "/evaluation.json has no test results: this run ended before its test; train again or "
                              "use Evaluate now in the Results tab");
    }
}

bool same_as_starter(const project::Project& project, const project::Project& starter) {
    const model::NetworkSpec& a = project.network;
    const model::NetworkSpec& b = starter.network;
    if (a.layers.size() != b.layers.size() || a.loss != b.loss) return false;
    for (std::size_t i = 0; i < a.layers.size(); ++i)
        if (!same_layer(a.layers[i], b.layers[i])) return false;
    return input_indices(a) == input_indices(b) && same_data_settings(project.dataset, starter.dataset) &&
           same_training(project.training, starter.training);
}

CheckReport check_exercise(const Exercise& exercise, const CheckInput& input) {
    check_input(exercise, input);
    CheckReport report;
    report.exercise = exercise.id;
    if (input.run) {
        report.run = input.run->id();
        if (input.run->receipt.test)
            report.test_accuracy = input.run->receipt.test->accuracy;
        else if (input.evaluation && input.evaluation->test)
            report.test_accuracy = input.evaluation->test->overall.accuracy;
    }
    const std::optional<project::Project> starter = starter_of(exercise);
    report.attempted = !starter || !same_as_starter(input.project, *starter);

    const detail::NetworkFacts facts = detail::network_facts(input.project);
    for (const Step& step : exercise.steps)
        for (const Check& check : step.checks) {
            CheckResult result;
            switch (check.kind) {
                case CheckKind::structure:
                    result = detail::structure_check(step.id, check, input.project, facts);
                    // The starter unchanged: what it lacks is the exercise itself, not a mistake.
                    if (!report.attempted && result.status != CheckStatus::passed) {
                        result.status = CheckStatus::not_attempted;
                        result.message = "Change the starter first: " + result.message;
                    }
                    break;
                case CheckKind::sanity:
                    result = detail::sanity_check(step.id, check, input, facts);
                    break;
                case CheckKind::outcome:
                    result = detail::outcome_check(step.id, check, exercise, input);
                    break;
                case CheckKind::interpretation:
                    result = detail::interpretation_check(step.id, check, input);
                    break;
            }
            report.checks.push_back(std::move(result));
        }
    return report;
}

nlohmann::json report_json(const CheckReport& report) {
    nlohmann::json checks = nlohmann::json::array();
    for (const CheckResult& check : report.checks)
        checks.push_back({{"step", check.step},
                          {"kind", check_kind_name(check.kind)},
                          {"type", check.type},
                          {"status", check_status_name(check.status)},
                          {"optional", check.optional},
                          {"message", check.message},
                          {"expected", check.expected},
                          {"found", check.found},
                          {"node", check.node},
                          {"point_at", check.point_at}});
    return {{"exercise", report.exercise},
            {"passed", report.passed()},
            {"attempted", report.attempted},
            {"run", report.run},
            {"test_accuracy", report.test_accuracy ? nlohmann::json(*report.test_accuracy) : nlohmann::json()},
            {"checks", checks}};
}

std::string report_text(const CheckReport& report) {
    std::string text;
    for (const CheckResult& check : report.checks) {
        text += status_word(check.status);
        text += "  ";
        text += check.message;
        if (check.optional) text += " (stretch goal)";
        text += "\n";
    }
    text += std::to_string(report.passed_count()) + " of " + std::to_string(report.checks.size()) +
            (report.checks.size() == 1 ? " check passed.\n" : " checks passed.\n");
    if (report.test_accuracy) text += "Test accuracy: " + detail::percent(*report.test_accuracy) + ".\n";
    return text;
}

}  // namespace bps::course
