#pragma once
// `backprop course`'s subcommands, each in its own file; course_command.cpp picks one and finds
// the course folder they share.
#include <filesystem>
#include <optional>
#include <string>

#include "app/cli/arguments.h"
#include "engine/course/exercise.h"

namespace bps::cli {

// The course folder: --course DIR, else course::course_root beside this program (empty when
// none was found: only the commands that need it say so).
std::filesystem::path course_folder(const std::optional<std::string>& flag);

// EXERCISE as given: an exercise folder, or an id in the course. Throws course::ExerciseError
// naming the file for a damaged one, std::runtime_error when there is no course to look in.
course::Exercise open_exercise(const std::filesystem::path& root, const std::string& word);

// What an exercise's check asks, in a learner's words ("has at most 100,000 parameters").
std::string check_description(const course::Check& check);

int run_course_list(Arguments& arguments, const std::filesystem::path& root);
int run_course_show(Arguments& arguments, const std::filesystem::path& root);
int run_course_check(Arguments& arguments, const std::filesystem::path& root);
int run_course_validate(Arguments& arguments);

}  // namespace bps::cli
