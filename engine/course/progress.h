#pragma once
// A learner's progress through the course, saved per user (the studio keeps it in its data
// folder) so that it survives a restart, and exported as a small JSON report for a teacher.
// The file is JSON, versioned, written atomically; a damaged one is refused, never overwritten.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/course/checker.h"
#include "engine/course/exercise.h"

namespace bps::course {

enum class ExerciseStatus { not_started, in_progress, passed };
const char* exercise_status_name(ExerciseStatus status);  // "not_started", "in_progress", "passed"

struct ExerciseProgress {
    ExerciseStatus status = ExerciseStatus::not_started;
    std::map<std::string, int> hints_used;  // by step id: how many of its hints were revealed
    bool solution_shown = false;
    int checks_run = 0;
    std::string started_at, passed_at;  // local time, ISO 8601
    std::optional<double> validation_accuracy, test_accuracy;  // of the run that passed
};

struct CourseProgress {
    std::map<std::string, ExerciseProgress> exercises;  // by exercise id
    ExerciseStatus status(const std::string& exercise) const;
    // Marks it in progress (keeping passed), stamping started_at the first time.
    void open(const std::string& exercise, const std::string& now);
    // Counts the check; a passing report marks it passed (once passed, it stays passed).
    void record_check(const CheckReport& report, const std::string& now);
    // Level is 1-based: revealing hint 2 of a step records 2 (never lowers it).
    void record_hint(const std::string& exercise, const std::string& step, int level);
    void record_solution(const std::string& exercise);
};

class ProgressError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr int progress_format_version = 1;
// A missing file is an empty progress; a damaged one throws ProgressError naming the file.
CourseProgress read_progress(const std::filesystem::path& file);
// Atomic (a temporary file, then a rename); throws ProgressError naming the file.
void save_progress(const std::filesystem::path& file, const CourseProgress& progress);

// For a teacher: {"format": "backprop-studio-course-report", "version": 1, "learner", "created_at",
// "exercises": [{"id", "title", "track", "status", "checks_run", "hints_used", "solution_shown",
// "started_at", "passed_at", "validation_accuracy", "test_accuracy"}], "passed", "total"}.
nlohmann::json progress_report(const CourseProgress& progress, const std::vector<Exercise>& course,
                               const std::string& learner, const std::string& now);

}  // namespace bps::course
