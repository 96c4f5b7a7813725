// backprop course check on the real first exercise, fm-01-first-mlp, on Fashion-MNIST: its
// solution, trained on a short budget, passes its structure and sanity checks, and its starter
// fails. Short enough for every test run (well under a minute on two cores).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/cli.h"
#include "tests/cli/course_fixture.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {
const std::filesystem::path course_root = std::filesystem::path(TESTS_SOURCE_DIR) / ".." / "tutorials" / "course";
const std::filesystem::path first_exercise = course_root / "fm-01-first-mlp";
}  // namespace

TEST_CASE("course check fm-01-first-mlp on Fashion-MNIST: the solution passes structure and sanity, the starter fails",
          "[cli][course][course-fashion-mnist]") {
    REQUIRE(std::filesystem::is_regular_file(first_exercise / "exercise.json"));
    TempDir dir("cli-course-fm01");
    const nlohmann::json exercise = nlohmann::json::parse(std::ifstream(first_exercise / "exercise.json"));
    const std::string check = backprop("course --course " + quote(course_root) + " check fm-01-first-mlp ");

    const std::filesystem::path starter =
        learner_copy(first_exercise / exercise["starter"].get<std::string>(), dir.path() / "starter", "mine.json");
    const ProcessResult untouched = run_command_stdout(check + quote(starter) + " --json");
    INFO(untouched.output);
    CHECK(untouched.exit_code == 1);
    const nlohmann::json starter_report = nlohmann::json::parse(untouched.output);
    CHECK(starter_report["passed"] == false);
    CHECK(starter_report["attempted"] == false);
    CHECK_THAT(starter_report["checks"][0]["message"].get<std::string>(),
               Catch::StartsWith("Change the starter first: "));

    // A short budget: the outcome checks may fail, the structure and sanity checks must not.
    const std::filesystem::path solution =
        learner_copy(first_exercise / exercise["solution"].get<std::string>(), dir.path() / "solution", "mine.json");
    const ProcessResult trained = run_command(backprop("train " + quote(solution) + " --epochs 1 --batches 30"));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    const ProcessResult checked = run_command_stdout(check + quote(solution) + " --json");
    INFO(checked.output);
    const nlohmann::json report = nlohmann::json::parse(checked.output);
    CHECK(report["attempted"] == true);
    int structure = 0, sanity = 0;
    for (const nlohmann::json& result : report["checks"]) {
        INFO(result.dump());
        if (result["kind"] == "structure" || result["kind"] == "sanity") CHECK(result["status"] == "passed");
        structure += result["kind"] == "structure" ? 1 : 0;
        sanity += result["kind"] == "sanity" ? 1 : 0;
    }
    CHECK(structure > 0);
    CHECK(sanity > 0);
}

TEST_CASE("course validate passes every exercise of the course", "[cli][course][course-content]") {
    const ProcessResult result = run_command(backprop("course validate " + quote(course_root)));
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Matches("[\\s\\S]*\n([0-9]+) of \\1 exercises valid\n"));
    CHECK_THAT(result.output, !Catch::Contains("NOT valid"));
}
