// backprop course list and show: the course's exercises by track, and one exercise as a learner
// reads it (instructions and steps), with its hints and solution for a teacher.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/course_command.h"
#include "app/cli/printable.h"
#include "engine/base/number_text.h"
#include "engine/project/project.h"
#include "engine/project/project_data.h"

namespace bps::cli {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        if (!text.empty()) text += ", ";
        text += word;
    }
    return text;
}

std::vector<course::Exercise> read_whole_course(const std::filesystem::path& root) {
    if (root.empty())
        throw std::runtime_error(
            "no course folder was found beside this program; give --course DIR or set BACKPROP_COURSE_DIR");
    std::vector<std::string> problems;
    std::vector<course::Exercise> exercises = course::read_course(root, &problems);
    for (const std::string& problem : problems)
        std::cerr << "backprop course: skipped a damaged exercise: " << printable(problem) << "\n";
    return exercises;
}

std::string file_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": could not be read; check that you may read it");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// "solution.json: Input, Flatten, Dense, ReLU, Dense; 101,770 parameters on Fashion-MNIST".
std::string solution_summary(const std::filesystem::path& file) {
    const project::Project solution = project::read_project(file);
    std::vector<std::string> types;
    for (const model::LayerSpec& layer : solution.network.layers) types.push_back(model::layer_type_name(layer.type));
    std::string line = file.filename().string() + ": " + joined(types);
    try {
        const session::DataFacts facts = session::project_data_facts(solution.dataset);
        const model::GraphAnalysis analysis =
            project::analyse_project(solution, facts.shape, static_cast<int>(facts.class_count));
        line += "; " + session::format_thousands(analysis.parameters()) + " parameters on " + facts.title;
    } catch (const std::exception& problem) {
        line += " (its parameters cannot be counted: " + std::string(problem.what()) + ")";
    }
    return line;
}

}  // namespace

int run_course_list(Arguments& arguments, const std::filesystem::path& root) {
    const bool json = arguments.take_flag("--json");
    arguments.expect_nothing_left();
    const std::vector<course::Exercise> exercises = read_whole_course(root);
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const course::Exercise& exercise : exercises)
            list.push_back({{"id", exercise.id},
                            {"title", exercise.title},
                            {"track", exercise.track},
                            {"order", exercise.order},
                            {"dataset", exercise.dataset},
                            {"minutes", exercise.minutes},
                            {"concepts", exercise.concepts},
                            {"goal", exercise.goal},
                            {"folder", exercise.folder.string()}});
        std::cout << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return exit_ok;
    }
    if (exercises.empty()) {
        std::cout << "no exercises in " << root.string() << "\n";
        return exit_ok;
    }
    std::size_t id_width = 2, title_width = 5;
    for (const course::Exercise& exercise : exercises) {
        id_width = std::max(id_width, printable(exercise.id).size());
        title_width = std::max(title_width, printable(exercise.title).size());
    }
    std::cout << session::format_count(exercises.size(), "exercise") << " in " << root.string() << "\n";
    std::string track;
    for (const course::Exercise& exercise : exercises) {
        if (exercise.track != track || &exercise == &exercises.front()) {
            track = exercise.track;
            std::cout << "\n" << printable(course::track_title(track)) << "\n";
        }
        std::cout << "  " << std::left << std::setw(static_cast<int>(id_width + 2)) << printable(exercise.id)
                  << std::setw(static_cast<int>(title_width + 2)) << printable(exercise.title) << std::right
                  << std::setw(4) << exercise.minutes << " min  " << printable(exercise.dataset) << "\n";
    }
    return exit_ok;
}

int run_course_show(Arguments& arguments, const std::filesystem::path& root) {
    const bool hints = arguments.take_flag("--hints");
    const bool solution = arguments.take_flag("--solution");
    const std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty())
        throw UsageError("which exercise? Give its id, as 'backprop course list' shows it, or its folder");
    if (words.size() > 1) throw UsageError("unexpected argument '" + words[1] + "'");
    const course::Exercise exercise = open_exercise(root, words[0]);

    std::cout << printable(exercise.title) << " (" << printable(exercise.id) << ")\n"
              << printable(course::track_title(exercise.track)) << ", exercise " << exercise.order << "; about "
              << exercise.minutes << " minutes; dataset " << printable(exercise.dataset) << "\n"
              << "Goal: " << printable(exercise.goal) << "\n"
              << "Concepts: " << printable(joined(exercise.concepts)) << "\n"
              << "Folder: " << exercise.folder.string() << "\n\n";
    // The Markdown as written: a terminal shows it well enough, and a teacher may pipe it on.
    std::string instructions = file_text(exercise.instructions);
    if (!instructions.empty() && instructions.back() != '\n') instructions += '\n';
    std::cout << printable(instructions, true) << "\n";

    std::cout << "Steps\n";
    int number = 0;
    for (const course::Step& step : exercise.steps) {
        std::cout << "\n" << ++number << ". " << printable(step.title) << " (" << printable(step.id) << ")\n";
        if (!step.text.empty()) std::cout << "   " << printable(step.text) << "\n";
        for (const course::Check& check : step.checks)
            std::cout << "   - " << printable(check_description(check)) << "\n";
        if (!hints) continue;
        int level = 0;
        for (const course::Hint& hint : step.hints) {
            std::cout << "   hint " << ++level << " (" << course::hint_level_name(hint.level)
                      << "): " << printable(hint.text);
            if (!hint.point_at.empty()) std::cout << " [points at " << printable(hint.point_at) << "]";
            std::cout << "\n";
        }
    }
    if (solution)
        std::cout << "\nSolution: " << exercise.solution.string() << "\n  "
                  << printable(solution_summary(exercise.solution)) << "\n";
    return exit_ok;
}

}  // namespace bps::cli
