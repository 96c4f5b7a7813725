// The learner's progress file and the teacher's report.
//
//     {"format": "backprop-studio-course-progress", "version": 1,
//      "exercises": {"fm-01-first-mlp": {"status": "passed", "hints_used": {"build": 2},
//                    "solution_shown": false, "checks_run": 3,
//                    "started_at": "2026-11-26T21:40:02", "passed_at": "2026-11-26T21:52:40",
//                    "validation_accuracy": 0.87, "test_accuracy": 0.86}}}
//
// Unknown fields are ignored (a newer minor addition still opens); a damaged file is refused
// with its name, so that a save never replaces a learner's record with an empty one.
#include "engine/course/progress.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "engine/base/atomic_file.h"
#include "engine/base/bounded_text.h"
#include "engine/io/input_file.h"
#include "engine/io/json_damage.h"

namespace bps::course {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* progress_format_tag = "backprop-studio-course-progress";
constexpr const char* report_format_tag = "backprop-studio-course-report";
constexpr int report_format_version = 1;
// A few hundred bytes per exercise: far more than any course.
constexpr std::uint64_t max_progress_bytes = std::uint64_t{4} << 20;

[[noreturn]] void refuse(const fs::path& file, const std::string& problem) {
    throw ProgressError(file.string() + ": " + problem);
}

std::optional<ExerciseStatus> status_named(const std::string& name) {
    for (const ExerciseStatus status :
         {ExerciseStatus::not_started, ExerciseStatus::in_progress, ExerciseStatus::passed})
        if (name == exercise_status_name(status)) return status;
    return std::nullopt;
}

// One exercise's record, read by a Damage that names it in a problem ("exercise 'fm-01-first-mlp': ").
struct Damage {
    const fs::path& file;
    std::string where;
    [[noreturn]] void operator()(const std::string& problem) const { refuse(file, where + problem); }
};

ExerciseProgress read_exercise_progress(const fs::path& file, const json& object, const std::string& where) {
    const Damage damaged{file, where};
    if (!object.is_object()) damaged("must be an object ({...})");
    ExerciseProgress progress;
    if (object.contains("status")) {
        const json& status = object["status"];
        const auto named = status.is_string() ? status_named(status.get<std::string>()) : std::nullopt;
        if (!named) damaged("\"status\" " + status.dump() + " is not one of not_started, in_progress, passed");
        progress.status = *named;
    }
    if (object.contains("hints_used")) {
        const json& hints = object["hints_used"];
        if (!hints.is_object()) damaged("\"hints_used\" must be an object of step ids and counts");
        for (const auto& [step, count] : hints.items()) {
            if (!count.is_number_integer() || count.get<long long>() < 0 || count.get<long long>() > 1000)
                damaged("\"hints_used\" of step '" + step + "' must be a count, not " + count.dump());
            progress.hints_used[step] = count.get<int>();
        }
    }
    if (object.contains("solution_shown")) {
        if (!object["solution_shown"].is_boolean()) damaged("\"solution_shown\" must be true or false");
        progress.solution_shown = object["solution_shown"].get<bool>();
    }
    if (object.contains("checks_run")) {
        const json& count = object["checks_run"];
        if (!count.is_number_integer() || count.get<long long>() < 0 ||
            count.get<long long>() > std::numeric_limits<int>::max())
            damaged("\"checks_run\" must be a count, not " + count.dump());
        progress.checks_run = count.get<int>();
    }
    for (const char* name : {"started_at", "passed_at"}) {
        if (!object.contains(name) || object[name].is_null()) continue;
        if (!object[name].is_string()) damaged(std::string("\"") + name + "\" must be a time as text");
        (name[0] == 's' ? progress.started_at : progress.passed_at) = object[name].get<std::string>();
    }
    for (const char* name : {"validation_accuracy", "test_accuracy"}) {
        if (!object.contains(name) || object[name].is_null()) continue;
        const json& value = object[name];
        if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1)
            damaged(std::string("\"") + name + "\" must be a fraction from 0 to 1, not " + value.dump());
        (name[0] == 'v' ? progress.validation_accuracy : progress.test_accuracy) = value.get<double>();
    }
    return progress;
}

json text_or_null(const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
}

json number_or_null(const std::optional<double>& value) {
    return value ? json(*value) : json(nullptr);
}

json hints_json(const std::map<std::string, int>& hints) {
    json object = json::object();
    for (const auto& [step, count] : hints) object[step] = count;
    return object;
}

json exercise_progress_json(const ExerciseProgress& progress) {
    json object = {{"status", exercise_status_name(progress.status)},
                   {"hints_used", hints_json(progress.hints_used)},
                   {"solution_shown", progress.solution_shown},
                   {"checks_run", progress.checks_run}};
    if (!progress.started_at.empty()) object["started_at"] = progress.started_at;
    if (!progress.passed_at.empty()) object["passed_at"] = progress.passed_at;
    if (progress.validation_accuracy) object["validation_accuracy"] = *progress.validation_accuracy;
    if (progress.test_accuracy) object["test_accuracy"] = *progress.test_accuracy;
    return object;
}

// The validation accuracy the passing run reached, from its validation_accuracy check's found
// value (the checker writes "87.3% (best, epoch 4)"; "0.873" reads too); unknown when the
// exercise has no such check or it reads otherwise: never guessed.
std::optional<double> reached_validation_accuracy(const CheckReport& report) {
    for (const CheckResult& check : report.checks) {
        if (check.type != "validation_accuracy" || check.status != CheckStatus::passed) continue;
        const std::string& text = check.found;
        if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) continue;
        std::size_t used = 0;
        double value = 0;
        try {
            value = std::stod(text, &used);
        } catch (const std::exception&) {
            continue;
        }
        if (used < text.size() && text[used] == '%') value /= 100;
        if (value >= 0 && value <= 1) return value;
    }
    return std::nullopt;
}

}  // namespace

const char* exercise_status_name(ExerciseStatus status) {
    switch (status) {
        case ExerciseStatus::not_started:
            return "not_started";
        case ExerciseStatus::in_progress:
            return "in_progress";
        case ExerciseStatus::passed:
            return "passed";
    }
    return "not_started";
}

ExerciseStatus CourseProgress::status(const std::string& exercise) const {
    const auto found = exercises.find(exercise);
    return found == exercises.end() ? ExerciseStatus::not_started : found->second.status;
}

void CourseProgress::open(const std::string& exercise, const std::string& now) {
    ExerciseProgress& progress = exercises[exercise];
    if (progress.status == ExerciseStatus::not_started) progress.status = ExerciseStatus::in_progress;
    if (progress.started_at.empty()) progress.started_at = now;
}

void CourseProgress::record_check(const CheckReport& report, const std::string& now) {
    ExerciseProgress& progress = exercises[report.exercise];
    ++progress.checks_run;
    if (progress.started_at.empty()) progress.started_at = now;
    if (progress.status == ExerciseStatus::passed) return;  // the figures stay those of the run that passed
    if (!report.passed()) {
        progress.status = ExerciseStatus::in_progress;
        return;
    }
    progress.status = ExerciseStatus::passed;
    progress.passed_at = now;
    progress.test_accuracy = report.test_accuracy;
    progress.validation_accuracy = reached_validation_accuracy(report);
}

void CourseProgress::record_hint(const std::string& exercise, const std::string& step, int level) {
    ExerciseProgress& progress = exercises[exercise];
    if (progress.status == ExerciseStatus::not_started) progress.status = ExerciseStatus::in_progress;
    int& used = progress.hints_used[step];
    used = std::max(used, level);
}

void CourseProgress::record_solution(const std::string& exercise) {
    ExerciseProgress& progress = exercises[exercise];
    if (progress.status == ExerciseStatus::not_started) progress.status = ExerciseStatus::in_progress;
    progress.solution_shown = true;
}

CourseProgress read_progress(const fs::path& file) {
    const io::InputKind kind = io::input_kind(file);
    if (kind == io::InputKind::missing) return {};
    if (kind == io::InputKind::folder) refuse(file, "is a folder, not a course progress file");
    if (kind == io::InputKind::special) refuse(file, io::special_file_problem);
    const io::BoundedText read = io::read_bounded_text(file, max_progress_bytes);
    if (read.outcome == io::TextRead::unreadable) refuse(file, "could not be read; check that you may read it");
    if (read.outcome == io::TextRead::too_large)
        refuse(file, "is larger than " + io::size_cap_words(max_progress_bytes) +
                         ", far more than any course progress; is it the right file?");
    json document;
    try {
        document = json::parse(read.text);
    } catch (const json::parse_error& error) {
        const io::JsonDamage damage = io::json_damage(read.text, error);
        refuse(file, "is not valid JSON (line " + std::to_string(damage.line) + ", column " +
                         std::to_string(damage.column) + ": " + damage.what + ")");
    }
    if (!document.is_object() || !document.contains("format") || document["format"] != progress_format_tag)
        refuse(file,
               "is not a Backprop Studio course progress file (no \"format\": \"backprop-studio-course-progress\")");
    if (!document.contains("version") || !document["version"].is_number_integer() ||
        document["version"].get<long long>() < 1)
        refuse(file, "has no \"version\" (a whole number from 1)");
    const long long version = document["version"].get<long long>();
    if (version > progress_format_version)
        refuse(file, "was written by a newer Backprop Studio (progress version " + std::to_string(version) +
                         "); this version reads version " + std::to_string(progress_format_version) +
                         " and older: update Backprop Studio");
    CourseProgress progress;
    if (!document.contains("exercises")) return progress;
    const json& exercises = document["exercises"];
    if (!exercises.is_object()) refuse(file, "\"exercises\" must be an object of exercise ids");
    for (const auto& [id, object] : exercises.items())
        progress.exercises[id] = read_exercise_progress(file, object, "exercise '" + id + "': ");
    return progress;
}

void save_progress(const fs::path& file, const CourseProgress& progress) {
    json exercises = json::object();
    for (const auto& [id, exercise] : progress.exercises) exercises[id] = exercise_progress_json(exercise);
    const json document = {
        {"format", progress_format_tag}, {"version", progress_format_version}, {"exercises", exercises}};
    // The studio's data folder may not exist before the first save.
    std::error_code error;
    if (file.has_parent_path()) fs::create_directories(file.parent_path(), error);
    if (error) refuse(file, "could not be saved: its folder could not be made (" + error.message() + ")");
    try {
        io::save_atomically(file, document.dump(2) + "\n");
    } catch (const io::SaveProblem& problem) {
        refuse(file, problem.what());
    }
}

json progress_report(const CourseProgress& progress, const std::vector<Exercise>& course, const std::string& learner,
                     const std::string& now) {
    json exercises = json::array();
    int passed = 0;
    for (const Exercise& exercise : course) {
        const auto found = progress.exercises.find(exercise.id);
        const ExerciseProgress mine = found == progress.exercises.end() ? ExerciseProgress{} : found->second;
        if (mine.status == ExerciseStatus::passed) ++passed;
        exercises.push_back(json{{"id", exercise.id},
                                 {"title", exercise.title},
                                 {"track", exercise.track},
                                 {"status", exercise_status_name(mine.status)},
                                 {"checks_run", mine.checks_run},
                                 {"hints_used", hints_json(mine.hints_used)},
                                 {"solution_shown", mine.solution_shown},
                                 {"started_at", text_or_null(mine.started_at)},
                                 {"passed_at", text_or_null(mine.passed_at)},
                                 {"validation_accuracy", number_or_null(mine.validation_accuracy)},
                                 {"test_accuracy", number_or_null(mine.test_accuracy)}});
    }
    return json{{"format", report_format_tag},
                {"version", report_format_version},
                {"learner", learner},
                {"created_at", now},
                {"exercises", exercises},
                {"passed", passed},
                {"total", static_cast<int>(course.size())}};
}

}  // namespace bps::course
