// `backprop course validate`: a teacher's exercise folder checked with the same checker the
// learners meet. The solution must pass every structure check, and the starter must leave the
// learner something to do (at least one check it does not pass).
#include <filesystem>
#include <optional>

#include "engine/course/checker.h"

namespace bps::course {

namespace {

std::optional<project::Project> open_project(const std::filesystem::path& file, const char* role,
                                             Validation& validation) {
    try {
        project::Project project = project::read_project(file);
        validation.notes.push_back(file.filename().string() + " opens (the " + role + ")");
        return project;
    } catch (const std::exception& error) {
        validation.problems.push_back(error.what());
        return std::nullopt;
    }
}

// The report of a project with no run, answers or device: structure checks decide, the others
// are `missing`. check_input's refusal is a problem of the exercise.
std::optional<CheckReport> checked(const Exercise& exercise, const project::Project& project,
                                   const std::filesystem::path& file, Validation& validation) {
    CheckInput input;
    input.project = project;
    input.source = file.string();
    try {
        return check_exercise(exercise, input);
    } catch (const std::exception& error) {
        validation.problems.push_back(error.what());
        return std::nullopt;
    }
}

}  // namespace

Validation validate_exercise(const std::filesystem::path& folder) {
    Validation validation;
    Exercise exercise;
    try {
        exercise = read_exercise(folder);
    } catch (const std::exception& error) {
        validation.problems.push_back(error.what());
        return validation;
    }
    std::size_t checks = 0;
    for (const Step& step : exercise.steps) checks += step.checks.size();
    validation.notes.push_back((folder / "exercise.json").string() + " is well formed: exercise '" + exercise.id +
                               "', " + std::to_string(exercise.steps.size()) + " steps, " + std::to_string(checks) +
                               " checks");

    const std::optional<project::Project> starter = open_project(exercise.starter, "starter", validation);
    const std::optional<project::Project> solution = open_project(exercise.solution, "solution", validation);

    if (solution) {
        if (const std::optional<CheckReport> report = checked(exercise, *solution, exercise.solution, validation)) {
            std::size_t structure = 0;
            for (const CheckResult& result : report->checks) {
                if (result.kind != CheckKind::structure) continue;
                ++structure;
                if (result.status != CheckStatus::passed)
                    validation.problems.push_back(exercise.solution.string() + ": the solution does not pass step '" +
                                                  result.step + "' (" + result.type + "): " + result.message);
            }
            if (!report->attempted)
                validation.problems.push_back(exercise.solution.string() +
                                              ": the solution is the starter unchanged; the learner would have "
                                              "nothing to do");
            validation.notes.push_back(exercise.solution.filename().string() + " passes " + std::to_string(structure) +
                                       " structure checks");
        }
    }
    if (starter) {
        if (const std::optional<CheckReport> report = checked(exercise, *starter, exercise.starter, validation)) {
            std::size_t open = 0;
            for (const CheckResult& result : report->checks)
                if (result.status != CheckStatus::passed) ++open;
            if (open == 0)
                validation.problems.push_back(exercise.starter.string() +
                                              ": the starter passes every check; the learner would have nothing to do");
            else
                validation.notes.push_back(exercise.starter.filename().string() + " leaves " + std::to_string(open) +
                                           " of " + std::to_string(report->checks.size()) + " checks to do");
        }
    }
    return validation;
}

}  // namespace bps::course
