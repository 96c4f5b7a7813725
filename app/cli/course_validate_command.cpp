// backprop course validate: a teacher's exercise folder checked before learners get it (the
// checks are course::validate_exercise's), or every exercise of a course folder, for a course's CI.
#include <algorithm>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/course_command.h"
#include "app/cli/printable.h"
#include "engine/base/number_text.h"
#include "engine/course/checker.h"

namespace bps::cli {

namespace {

bool holds_exercise(const std::filesystem::path& folder) {
    std::error_code ignored;
    return std::filesystem::is_regular_file(folder / "exercise.json", ignored);
}

// The exercise folders of a course folder, by name: damaged ones too, so that they are named.
std::vector<std::filesystem::path> exercise_folders(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> folders;
    std::error_code error;
    for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(root, error))
        if (entry.is_directory(error) && holds_exercise(entry.path())) folders.push_back(entry.path());
    if (error) throw std::runtime_error(root.string() + ": could not be read: " + error.message());
    std::sort(folders.begin(), folders.end());
    return folders;
}

// Prints the folder's notes and problems; true when it has none of the latter.
bool validate_one(const std::filesystem::path& folder) {
    course::Validation validation;
    try {
        validation = course::validate_exercise(folder);
    } catch (const std::exception& problem) {  // a validation that could not finish is a problem too
        validation.problems.push_back(problem.what());
    }
    std::cout << folder.string() << ": " << (validation.ok() ? "valid" : "NOT valid") << "\n";
    for (const std::string& note : validation.notes) std::cout << "  ok       " << printable(note) << "\n";
    for (const std::string& problem : validation.problems) std::cout << "  PROBLEM  " << printable(problem) << "\n";
    return validation.ok();
}

}  // namespace

int run_course_validate(Arguments& arguments) {
    const std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty())
        throw UsageError("which folder? Give an exercise folder (holding exercise.json) or a course folder");
    if (words.size() > 1) throw UsageError("unexpected argument '" + words[1] + "'");
    const std::filesystem::path folder(words[0]);
    std::error_code ignored;
    if (!std::filesystem::is_directory(folder, ignored))
        throw std::runtime_error(folder.string() + ": there is no such folder");
    if (holds_exercise(folder)) return validate_one(folder) ? exit_ok : exit_failure;

    const std::vector<std::filesystem::path> folders = exercise_folders(folder);
    if (folders.empty())
        throw std::runtime_error(folder.string() +
                                 ": holds no exercise.json, nor exercise folders that hold one; an exercise folder "
                                 "has exercise.json, its instructions, a starter and a solution");
    std::size_t valid = 0;
    for (const std::filesystem::path& exercise : folders) {
        if (validate_one(exercise)) ++valid;
        std::cout << "\n";
    }
    std::cout << valid << " of " << session::format_count(folders.size(), "exercise") << " valid\n";
    return valid == folders.size() ? exit_ok : exit_failure;
}

}  // namespace bps::cli
