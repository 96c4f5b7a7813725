// backprop course check: a learner's project and run checked by the studio's own checker
// (engine/course/checker.h), so a teacher's grade and the learner's Check never disagree.
// Exit status 0 passed, 1 failed or refused (naming the file), 2 a usage mistake.
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/course_command.h"
#include "app/cli/printable.h"
#include "app/cli/project_argument.h"
#include "engine/course/checker.h"
#include "engine/course/sanity_runner.h"
#include "engine/device/device_description.h"
#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"

namespace bps::cli {

namespace {

// Every --answer STEP=VALUE, by step, in its form only: the steps are known once the exercise is read.
std::map<std::string, std::string> take_answers(Arguments& arguments) {
    std::map<std::string, std::string> answers;
    while (const std::optional<std::string> answer = arguments.take_option("--answer")) {
        const std::size_t equals = answer->find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == answer->size())
            throw UsageError("--answer needs STEP=VALUE (such as confusion=\"Shirt>T-shirt/top\"), not '" + *answer +
                             "'");
        const std::string step = answer->substr(0, equals);
        if (answers.contains(step)) throw UsageError("--answer gives step '" + step + "' twice");
        answers[step] = answer->substr(equals + 1);
    }
    return answers;
}

// An answer to a step the exercise lacks is a usage mistake (a typo would otherwise read as a
// missing answer).
void expect_known_steps(const std::map<std::string, std::string>& answers, const course::Exercise& exercise) {
    for (const auto& [step, value] : answers) {
        bool known = false;
        std::string steps;
        for (const course::Step& candidate : exercise.steps) {
            known = known || candidate.id == step;
            if (!steps.empty()) steps += ", ";
            steps += candidate.id;
        }
        if (!known)
            throw UsageError("--answer names step '" + step + "', which exercise '" + exercise.id +
                             "' does not have; its steps are " + steps);
    }
}

bool has_sanity_checks(const course::Exercise& exercise) {
    for (const course::Step& step : exercise.steps)
        for (const course::Check& check : step.checks)
            if (check.kind == course::CheckKind::sanity) return true;
    return false;
}

}  // namespace

int run_course_check(Arguments& arguments, const std::filesystem::path& root) {
    const std::optional<std::string> run_flag = arguments.take_file_option("--run");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const bool no_sanity = arguments.take_flag("--no-sanity");
    const bool json = arguments.take_flag("--json");
    std::map<std::string, std::string> answers = take_answers(arguments);
    const std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty())
        throw UsageError("which exercise? Give its id, as 'backprop course list' shows it, or its folder");
    if (words.size() < 2) throw UsageError("which project? Give the learner's project file after the exercise");
    if (words.size() > 2) throw UsageError("unexpected argument '" + words[2] + "'");

    const course::Exercise exercise = open_exercise(root, words[0]);
    expect_known_steps(answers, exercise);
    course::CheckInput input;
    input.answers = std::move(answers);
    OpenedProject opened = open_project(words[1]);
    input.source = opened.source;
    input.project = std::move(opened.project);

    // The project's runs (for "which run overfits?") and the run checked: --run's, else the newest.
    const bool project_file = !opened.project_file.empty() && opened.weights_file.empty();
    if (project_file) {
        std::vector<std::string> problems;
        input.runs = session::list_runs(session::runs_folder_for(opened.project_file), &problems);
        for (const std::string& problem : problems)
            std::cerr << "backprop course: skipped a damaged run: " << printable(problem) << "\n";
    }
    std::optional<std::filesystem::path> run_folder;
    if (run_flag) {
        std::error_code ignored;
        if (!std::filesystem::is_directory(*run_flag, ignored))
            throw std::runtime_error(*run_flag + ": there is no such run folder");
        run_folder = *run_flag;
    } else if (!input.runs.empty()) {
        run_folder = input.runs.back().folder;
    }
    if (run_folder) {
        input.run = session::read_run(*run_folder);
        input.evaluation = session::read_run_evaluation(*run_folder);
    }

    std::unique_ptr<course::DeviceSanityRunner> sanity;
    if (!no_sanity && has_sanity_checks(exercise)) {
        const std::string requested = device::device_request(device_flag);
        sanity = std::make_unique<course::DeviceSanityRunner>(requested.empty() ? input.project.device : requested);
        input.sanity = sanity.get();
    }
    // check_input refuses, before any check, another dataset, a run of another project or a run
    // with no evaluation where one is needed: a CourseError naming the file, status 1.
    const course::CheckReport report = course::check_exercise(exercise, input);
    if (json)
        std::cout << course::report_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        std::cout << printable(course::report_text(report), true);
    return report.passed() ? exit_ok : exit_failure;
}

}  // namespace bps::cli
