// The learner's progress: saved and read back whole, a damaged file refused by name (never
// taken for an empty progress), checks, hints and the solution recorded as the studio shows
// them, and the teacher's report.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/base/atomic_file.h"
#include "engine/course/progress.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using bps::course::CheckReport;
using bps::course::CheckResult;
using bps::course::CheckStatus;
using bps::course::CourseProgress;
using bps::course::ExerciseStatus;
using bps::course::ProgressError;
using nlohmann::json;

namespace {

using bps::test::read_text;
using bps::test::write_text;

CheckResult result(const std::string& type, CheckStatus status, const std::string& found = "") {
    CheckResult check;
    check.step = "train";
    check.kind = type == "validation_accuracy" ? bps::course::CheckKind::outcome : bps::course::CheckKind::structure;
    check.type = type;
    check.status = status;
    check.found = found;
    return check;
}

// A report on `exercise`: a structure check and the validation accuracy check, both as given.
CheckReport report(const std::string& exercise, CheckStatus structure, CheckStatus outcome,
                   const std::string& found = "87.3% (best, epoch 4)", std::optional<double> test_accuracy = 0.861) {
    CheckReport report;
    report.exercise = exercise;
    report.test_accuracy = test_accuracy;
    report.checks = {result("has_layers", structure), result("validation_accuracy", outcome, found)};
    return report;
}

bps::course::Exercise exercise(const std::string& id, const std::string& title, const std::string& track) {
    bps::course::Exercise exercise;
    exercise.id = id;
    exercise.title = title;
    exercise.track = track;
    return exercise;
}

}  // namespace

TEST_CASE("the status names", "[course-progress]") {
    CHECK(std::string(bps::course::exercise_status_name(ExerciseStatus::not_started)) == "not_started");
    CHECK(std::string(bps::course::exercise_status_name(ExerciseStatus::in_progress)) == "in_progress");
    CHECK(std::string(bps::course::exercise_status_name(ExerciseStatus::passed)) == "passed");
}

TEST_CASE("opening, checking, hints and the solution are recorded as the studio shows them", "[course-progress]") {
    CourseProgress progress;
    CHECK(progress.status("fm-01") == ExerciseStatus::not_started);

    progress.open("fm-01", "2026-11-26T10:00:00");
    CHECK(progress.status("fm-01") == ExerciseStatus::in_progress);
    progress.open("fm-01", "2026-11-26T11:00:00");
    CHECK(progress.exercises["fm-01"].started_at == "2026-11-26T10:00:00");  // stamped the first time only

    progress.record_check(report("fm-01", CheckStatus::failed, CheckStatus::missing, ""), "2026-11-26T10:05:00");
    const auto& fm01 = progress.exercises["fm-01"];
    CHECK(fm01.status == ExerciseStatus::in_progress);
    CHECK(fm01.checks_run == 1);
    CHECK(fm01.passed_at.empty());
    CHECK_FALSE(fm01.test_accuracy.has_value());

    progress.record_hint("fm-01", "build", 2);
    progress.record_hint("fm-01", "build", 1);  // revealing hint 1 again never lowers it
    progress.record_hint("fm-01", "train", 1);
    CHECK(fm01.hints_used == std::map<std::string, int>{{"build", 2}, {"train", 1}});
    progress.record_hint("fm-01", "build", 3);
    CHECK(fm01.hints_used.at("build") == 3);
    CHECK_FALSE(fm01.solution_shown);
    progress.record_solution("fm-01");
    CHECK(fm01.solution_shown);

    progress.record_check(report("fm-01", CheckStatus::passed, CheckStatus::passed), "2026-11-26T10:20:00");
    CHECK(fm01.status == ExerciseStatus::passed);
    CHECK(fm01.checks_run == 2);
    CHECK(fm01.passed_at == "2026-11-26T10:20:00");
    CHECK(fm01.validation_accuracy == Approx(0.873));  // the passing check's "87.3% (best, epoch 4)"
    CHECK(fm01.test_accuracy == 0.861);

    // Once passed, it stays passed, with the figures of the run that passed.
    progress.record_check(report("fm-01", CheckStatus::failed, CheckStatus::failed, "40.0%", 0.4),
                          "2026-11-26T10:30:00");
    CHECK(fm01.status == ExerciseStatus::passed);
    CHECK(fm01.checks_run == 3);
    CHECK(fm01.passed_at == "2026-11-26T10:20:00");
    CHECK(fm01.test_accuracy == 0.861);
    progress.open("fm-01", "2026-11-26T12:00:00");
    CHECK(progress.status("fm-01") == ExerciseStatus::passed);

    // A check on an exercise never opened (the command line) starts it.
    progress.record_check(report("fm-02", CheckStatus::passed, CheckStatus::passed, "0.91", std::nullopt),
                          "2026-11-26T13:00:00");
    CHECK(progress.exercises["fm-02"].started_at == "2026-11-26T13:00:00");
    CHECK(progress.exercises["fm-02"].validation_accuracy == Approx(0.91));
    CHECK_FALSE(progress.exercises["fm-02"].test_accuracy.has_value());

    // A found value that is not a figure leaves the validation accuracy unknown, never guessed.
    progress.record_check(report("fm-04", CheckStatus::passed, CheckStatus::passed, "best run"), "2026-11-26T14:00:00");
    CHECK(progress.status("fm-04") == ExerciseStatus::passed);
    CHECK_FALSE(progress.exercises["fm-04"].validation_accuracy.has_value());

    // A hint alone means the learner is at work on it.
    progress.record_hint("fm-03", "build", 1);
    CHECK(progress.status("fm-03") == ExerciseStatus::in_progress);
}

TEST_CASE("progress is saved and read back whole", "[course-progress]") {
    bps::test::TempDir dir("course-progress");
    const fs::path file = dir.path() / "data" / "course-progress.json";  // its folder is made
    CHECK(bps::course::read_progress(file).exercises.empty());           // a missing file is no progress yet

    CourseProgress progress;
    progress.open("fm-01", "2026-11-26T10:00:00");
    progress.record_hint("fm-01", "build", 2);
    progress.record_solution("fm-01");
    progress.record_check(report("fm-01", CheckStatus::passed, CheckStatus::passed), "2026-11-26T10:20:00");
    progress.open("fm-02", "2026-11-26T11:00:00");
    bps::course::save_progress(file, progress);

    const json saved = json::parse(read_text(file));
    CHECK(saved["format"] == "backprop-studio-course-progress");
    CHECK(saved["version"] == 1);
    CHECK(saved["exercises"]["fm-02"] == json{{"status", "in_progress"},
                                              {"hints_used", json::object()},
                                              {"solution_shown", false},
                                              {"checks_run", 0},
                                              {"started_at", "2026-11-26T11:00:00"}});

    const CourseProgress back = bps::course::read_progress(file);
    REQUIRE(back.exercises.size() == 2);
    const auto& fm01 = back.exercises.at("fm-01");
    CHECK(fm01.status == ExerciseStatus::passed);
    CHECK(fm01.hints_used == std::map<std::string, int>{{"build", 2}});
    CHECK(fm01.solution_shown);
    CHECK(fm01.checks_run == 1);
    CHECK(fm01.started_at == "2026-11-26T10:00:00");
    CHECK(fm01.passed_at == "2026-11-26T10:20:00");
    CHECK(fm01.validation_accuracy == Approx(0.873));
    CHECK(fm01.test_accuracy == Approx(0.861));
    const auto& fm02 = back.exercises.at("fm-02");
    CHECK(fm02.status == ExerciseStatus::in_progress);
    CHECK(fm02.passed_at.empty());
    CHECK_FALSE(fm02.validation_accuracy.has_value());

    // Saving again replaces it, leaving no temporary file beside it.
    progress.record_hint("fm-02", "build", 1);
    bps::course::save_progress(file, progress);
    CHECK(bps::course::read_progress(file).exercises.at("fm-02").hints_used.at("build") == 1);
    int files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(file.parent_path())) ++files;
    CHECK(files == 1);
}

TEST_CASE("a damaged or newer progress file is refused by name", "[course-progress]") {
    bps::test::TempDir dir("course-progress");
    const fs::path file = dir.path() / "course-progress.json";
    const std::string name = file.string();
    const auto problem = [&](const std::string& text) {
        write_text(file, text);
        try {
            bps::course::read_progress(file);
        } catch (const ProgressError& error) {
            return std::string(error.what());
        }
        return std::string("read without a problem");
    };
    CHECK(problem("{\"format\": \"backprop-studio-course-progress\",\n \"version\": 1,") ==
          name + ": is not valid JSON (line 2, column 15: unexpected end of input; expected string literal)");
    CHECK(problem("{\"format\": \"backprop-studio-project\", \"version\": 1}") ==
          name +
              ": is not a Backprop Studio course progress file (no \"format\": \"backprop-studio-course-progress\")");
    CHECK(problem(R"({"format": "backprop-studio-course-progress"})") ==
          name + ": has no \"version\" (a whole number from 1)");
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 2, "exercises": {}})") ==
          name +
              ": was written by a newer Backprop Studio (progress version 2); this version reads version 1 and older: "
              "update Backprop Studio");
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 1, "exercises": []})") ==
          name + ": \"exercises\" must be an object of exercise ids");
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 1,
                      "exercises": {"fm-01": {"status": "done"}}})") ==
          name + ": exercise 'fm-01': \"status\" \"done\" is not one of not_started, in_progress, passed");
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 1,
                      "exercises": {"fm-01": {"hints_used": {"build": -1}}}})") ==
          name + ": exercise 'fm-01': \"hints_used\" of step 'build' must be a count, not -1");
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 1,
                      "exercises": {"fm-01": {"test_accuracy": 86}}})") ==
          name + ": exercise 'fm-01': \"test_accuracy\" must be a fraction from 0 to 1, not 86");
    // Unknown fields from a newer minor version are passed over.
    CHECK(problem(R"({"format": "backprop-studio-course-progress", "version": 1, "badges": 3,
                      "exercises": {"fm-01": {"status": "passed", "stars": 5}}})") == "read without a problem");

    // A save that cannot be made says why, naming the file.
    const fs::path folder = dir.path() / "a-folder";
    fs::create_directories(folder);
    CHECK_THROWS_AS(bps::course::save_progress(folder, CourseProgress{}), ProgressError);
    try {
        bps::course::save_progress(folder, CourseProgress{});
    } catch (const ProgressError& error) {
        CHECK(std::string(error.what()).rfind(folder.string() + ": ", 0) == 0);
    }
}

TEST_CASE("the teacher's report lists every exercise of the course with its progress", "[course-progress]") {
    CourseProgress progress;
    progress.open("fm-01", "2026-11-26T10:00:00");
    progress.record_hint("fm-01", "build", 2);
    progress.record_check(report("fm-01", CheckStatus::passed, CheckStatus::passed, "0.873"), "2026-11-26T10:20:00");
    progress.open("mnist-01", "2026-11-26T11:00:00");
    progress.record_solution("mnist-01");
    progress.open("gone", "2026-11-26T09:00:00");  // an exercise no longer in the course is left out

    const std::vector<bps::course::Exercise> course{exercise("fm-01", "Your first network", "fashion-mnist"),
                                                    exercise("mnist-01", "An MLP for digits", "mnist"),
                                                    exercise("cifar-01", "A CNN for CIFAR-10", "cifar10")};
    const json report = bps::course::progress_report(progress, course, "Ada", "2026-11-26T12:00:00");
    const json expected = {{"format", "backprop-studio-course-report"},
                           {"version", 1},
                           {"learner", "Ada"},
                           {"created_at", "2026-11-26T12:00:00"},
                           {"exercises",
                            {{{"id", "fm-01"},
                              {"title", "Your first network"},
                              {"track", "fashion-mnist"},
                              {"status", "passed"},
                              {"checks_run", 1},
                              {"hints_used", {{"build", 2}}},
                              {"solution_shown", false},
                              {"started_at", "2026-11-26T10:00:00"},
                              {"passed_at", "2026-11-26T10:20:00"},
                              {"validation_accuracy", 0.873},
                              {"test_accuracy", 0.861}},
                             {{"id", "mnist-01"},
                              {"title", "An MLP for digits"},
                              {"track", "mnist"},
                              {"status", "in_progress"},
                              {"checks_run", 0},
                              {"hints_used", json::object()},
                              {"solution_shown", true},
                              {"started_at", "2026-11-26T11:00:00"},
                              {"passed_at", nullptr},
                              {"validation_accuracy", nullptr},
                              {"test_accuracy", nullptr}},
                             {{"id", "cifar-01"},
                              {"title", "A CNN for CIFAR-10"},
                              {"track", "cifar10"},
                              {"status", "not_started"},
                              {"checks_run", 0},
                              {"hints_used", json::object()},
                              {"solution_shown", false},
                              {"started_at", nullptr},
                              {"passed_at", nullptr},
                              {"validation_accuracy", nullptr},
                              {"test_accuracy", nullptr}}}},
                           {"passed", 1},
                           {"total", 3}};
    CHECK(report.dump(2) == expected.dump(2));
}

TEST_CASE("saving the course progress probes its destination once") {
    const bps::test::TempDir folder("progress-probe");
    const fs::path file = folder.path() / "course-progress.json";
    CourseProgress progress;
    progress.open("fm-01", "2026-11-26T10:00:00");
    const unsigned long long before = bps::io::destination_probes();
    bps::course::save_progress(file, progress);
    CHECK(bps::io::destination_probes() - before == 1);
    CHECK(fs::exists(file));
}
