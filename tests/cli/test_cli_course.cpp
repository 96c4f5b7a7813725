// backprop course: list, show, check and validate on a small exercise on the stripes image
// folder (course_fixture.h), with the exit statuses a teacher's grading loop relies on.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/course_fixture.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

std::string course_command(const StripesCourse& course, const std::string& arguments) {
    return backprop("course --course " + quote(course.root) + " " + arguments);
}

// The project's runs, oldest first, as `backprop runs --json` gives them.
std::vector<nlohmann::json> runs_of(const std::filesystem::path& project) {
    const ProcessResult listed = run_command_stdout(backprop("runs " + quote(project) + " --json"));
    REQUIRE(listed.exit_code == 0);
    std::vector<nlohmann::json> runs;
    std::istringstream lines(listed.output);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) runs.push_back(nlohmann::json::parse(line));
    return runs;
}

void train(const std::filesystem::path& project, const std::string& options) {
    const ProcessResult trained = run_command(backprop("train " + quote(project) + " " + options));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
}

}  // namespace

TEST_CASE("course list gives the exercises by track, as text and as JSON", "[cli][course]") {
    TempDir dir("cli-course-list");
    const StripesCourse course = write_stripes_course(dir.path());

    const ProcessResult text = run_command(course_command(course, "list"));
    INFO(text.output);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.output, Catch::Contains("1 exercise in " + course.root.string()));
    CHECK_THAT(text.output, Catch::Matches("[\\s\\S]*stripes-01 +Tell stripes apart +5 min  folder\n[\\s\\S]*"));

    const ProcessResult json = run_command_stdout(course_command(course, "list --json"));
    REQUIRE(json.exit_code == 0);
    const nlohmann::json list = nlohmann::json::parse(json.output);
    REQUIRE(list.size() == 1);
    const nlohmann::json& exercise = list[0];
    CHECK(exercise["id"] == "stripes-01");
    CHECK(exercise["title"] == "Tell stripes apart");
    CHECK(exercise["track"] == "stripes");
    CHECK(exercise["order"] == 1);
    CHECK(exercise["dataset"] == "folder");
    CHECK(exercise["minutes"] == 5);
    CHECK(exercise["concepts"] == nlohmann::json::array({"Dense layer", "validation accuracy"}));
    CHECK(exercise["goal"] == "Add a hidden layer and reach 70% validation accuracy within 8 epochs.");
    CHECK(std::filesystem::equivalent(exercise["folder"].get<std::string>(), course.exercise));

    // BACKPROP_COURSE_DIR finds the course without --course.
    ScopedEnvironment course_dir("BACKPROP_COURSE_DIR", course.root.string());
    const ProcessResult from_environment = run_command_stdout(backprop("course list --json"));
    REQUIRE(from_environment.exit_code == 0);
    CHECK(nlohmann::json::parse(from_environment.output)[0]["id"] == "stripes-01");
}

TEST_CASE("course show prints the instructions, the steps' checks, the hints and the solution", "[cli][course]") {
    TempDir dir("cli-course-show");
    const StripesCourse course = write_stripes_course(dir.path());

    const ProcessResult plain = run_command(course_command(course, "show stripes-01"));
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    CHECK_THAT(plain.output, Catch::StartsWith("Tell stripes apart (stripes-01)\n"));
    CHECK_THAT(plain.output,
               Catch::Contains("Goal: Add a hidden layer and reach 70% validation accuracy within 8 epochs."));
    CHECK_THAT(plain.output, Catch::Contains("about 5 minutes; dataset folder"));
    CHECK_THAT(plain.output, Catch::Contains("Concepts: Dense layer, validation accuracy"));
    CHECK_THAT(plain.output, Catch::Contains("# Tell stripes apart\n\nRows or columns? A *hidden layer* helps.\n"));
    CHECK_THAT(plain.output, Catch::Contains("1. Add a hidden layer (hidden)\n"
                                             "   Put a Dense layer of 16 units before the output.\n"
                                             "   - structure: has at least 2 Dense layers\n"
                                             "   - structure: has at most 2,000 parameters\n"));
    CHECK_THAT(plain.output,
               Catch::Contains("   - outcome: reaches at least 70% validation accuracy within 8 epochs, at the "
                               "exercise's seed\n"));
    CHECK_THAT(plain.output, Catch::Contains("   - interpretation: picks the run of best validation accuracy in the "
                                             "run list (--answer STEP=RUN)\n"));
    CHECK_THAT(plain.output, !Catch::Contains("hint 1"));
    CHECK_THAT(plain.output, !Catch::Contains("Solution:"));

    // By its folder too, with the hints and the solution.
    const ProcessResult full =
        run_command(course_command(course, "show " + quote(course.exercise) + " --hints --solution"));
    INFO(full.output);
    REQUIRE(full.exit_code == 0);
    CHECK_THAT(full.output,
               Catch::Contains("   hint 1 (nudge): One Dense layer draws a straight line.\n"
                               "   hint 2 (pointer): Drag a Dense layer from the palette. [points at "
                               "dock:palette]\n"
                               "   hint 3 (near_solution): Flatten, Dense 16, ReLU, then the output Dense 2.\n"));
    CHECK_THAT(full.output, Catch::Contains("   hint 1 (pointer): Look at the run list. [points at tab:training]\n"));
    // 64 * 16 + 16 + 16 * 2 + 2 parameters.
    CHECK_THAT(full.output, Catch::Contains("\nSolution: " + (course.exercise / "solution.json").string() +
                                            "\n  solution.json: Input, Flatten, Dense, Activation, Dense; 1,074 "
                                            "parameters on " +
                                            course.images.string() + "\n"));
}

TEST_CASE("course check: the starter is not attempted, the trained solution passes every check", "[cli][course]") {
    TempDir dir("cli-course-check");
    const StripesCourse course = write_stripes_course(dir.path());

    // The starter as the learner got it: nothing attempted yet, so it fails with status 1.
    const std::filesystem::path starter =
        learner_copy(course.exercise / "starter.json", dir.path() / "learner", "stripes.json");
    const ProcessResult untouched = run_command(course_command(course, "check stripes-01 " + quote(starter)));
    INFO(untouched.output);
    CHECK(untouched.exit_code == 1);
    CHECK_THAT(untouched.output,
               Catch::StartsWith("TODO  Change the starter first: Expected at least 2 Dense layers; found 1 (out).\n"
                                 "PASS  A small network is enough for stripes.\n"
                                 "NEED  Train the project, then Check.\n"));

    // The solution, trained twice: a poor run, then a good one (the newest, which is checked).
    const std::filesystem::path project =
        learner_copy(course.exercise / "solution.json", dir.path() / "learner", "stripes.json");
    train(project, "--epochs 1 --lr 0.0001");
    train(project, "");
    const std::vector<nlohmann::json> runs = runs_of(project);
    REQUIRE(runs.size() == 2);
    const std::string poor = runs[0]["id"], good = runs[1]["id"];
    const std::string poor_name =
        runs[0]["name"].get<std::string>().empty() ? poor : runs[0]["name"].get<std::string>();
    REQUIRE(runs[1]["validation"]["accuracy"].get<double>() > runs[0]["validation"]["accuracy"].get<double>());

    const ProcessResult passed = run_command_stdout(
        course_command(course, "check stripes-01 " + quote(project) + " --answer best=" + good + " --json"));
    INFO(passed.output);
    CHECK(passed.exit_code == 0);
    const nlohmann::json report = nlohmann::json::parse(passed.output);
    CHECK(report["exercise"] == "stripes-01");
    CHECK(report["passed"] == true);
    CHECK(report["attempted"] == true);
    CHECK(report["run"] == good);
    REQUIRE(report["checks"].size() == 4);
    for (const nlohmann::json& check : report["checks"]) {
        INFO(check.dump());
        CHECK(check["status"] == "passed");
    }
    CHECK(report["checks"][0]["message"] == "A hidden layer lets the network combine the pixels.");

    // The same as text, and the run given by its folder.
    const ProcessResult text =
        run_command(course_command(course, "check stripes-01 " + quote(project) + " --run " +
                                               quote(runs[1]["folder"].get<std::string>()) + " --answer=best=" + good));
    INFO(text.output);
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.output, Catch::Contains("4 of 4 checks passed."));

    // A wrong answer: exit 1, with what was expected and what was found.
    const ProcessResult wrong = run_command_stdout(
        course_command(course, "check stripes-01 " + quote(project) + " --answer best=" + poor + " --json"));
    INFO(wrong.output);
    CHECK(wrong.exit_code == 1);
    const nlohmann::json wrong_report = nlohmann::json::parse(wrong.output);
    CHECK(wrong_report["passed"] == false);
    const nlohmann::json& picked = wrong_report["checks"][3];
    CHECK(picked["step"] == "best");
    CHECK(picked["status"] == "failed");
    CHECK(picked["expected"] == "the run with the best validation accuracy");
    CHECK(picked["found"] == poor_name);
    CHECK_THAT(picked["message"].get<std::string>(),
               Catch::StartsWith("Expected the run with the best validation accuracy; found " + poor_name + ", with "));

    // A run of another project is refused, naming its file.
    const std::filesystem::path other =
        changed_stripes_project(dir.path() / "other", 8, [](nlohmann::json& json) { json["name"] = "other"; });
    train(other, "--epochs 1");
    const std::string other_run = runs_of(other)[0]["folder"];
    const ProcessResult foreign =
        run_command(course_command(course, "check stripes-01 " + quote(project) + " --run " + quote(other_run)));
    INFO(foreign.output);
    CHECK(foreign.exit_code == 1);
    CHECK_THAT(foreign.output, Catch::Contains("backprop course: error: " + other_run +
                                               ": this run is from project 'other', not from project 'stripes' (" +
                                               project.string() + ")"));
}

TEST_CASE("course check refuses a damaged exercise, a project for another dataset and bad usage", "[cli][course]") {
    TempDir dir("cli-course-refused");
    const StripesCourse course = write_stripes_course(dir.path());
    const std::filesystem::path project =
        learner_copy(course.exercise / "solution.json", dir.path() / "learner", "stripes.json");

    SECTION("usage mistakes exit with status 2") {
        for (const std::string& arguments : std::vector<std::string>{
                 "", "bogus", "check", "check stripes-01", "check stripes-01 " + quote(project) + " --bogus",
                 "check stripes-01 " + quote(project) + " --answer best",
                 "check stripes-01 " + quote(project) + " --answer =x",
                 "check stripes-01 " + quote(project) + " --answer nostep=x",
                 "check stripes-01 " + quote(project) + " --run", "list --bogus", "show", "validate"}) {
            const ProcessResult result = run_command(course_command(course, arguments));
            INFO(arguments << "\n" << result.output);
            CHECK(result.exit_code == 2);
            CHECK_THAT(result.output, Catch::Contains("usage: backprop course list"));
        }
        const ProcessResult malformed =
            run_command(course_command(course, "check stripes-01 " + quote(project) + " --answer best"));
        CHECK_THAT(
            malformed.output,
            Catch::Contains("backprop course: --answer needs STEP=VALUE (such as confusion=\"Shirt>T-shirt/top\"), "
                            "not 'best'"));
        const ProcessResult unknown =
            run_command(course_command(course, "check stripes-01 " + quote(project) + " --answer nostep=x"));
        CHECK_THAT(unknown.output, Catch::Contains("--answer names step 'nostep', which exercise 'stripes-01' does not "
                                                   "have; its steps are hidden, train, best"));
    }
    SECTION("the help names every course command and check's exit statuses") {
        const ProcessResult help = run_command(backprop("course --help"));
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.output, Catch::StartsWith("usage: backprop course list [--json]\n"));
        CHECK_THAT(help.output, Catch::Contains("Exit status: 0 when every check passed"));
        const ProcessResult main_help = run_command(backprop("--help"));
        CHECK_THAT(main_help.output, Catch::Contains("\n  course    the course's exercises"));
    }
    SECTION("a damaged exercise.json is named, with status 1") {
        std::ofstream(course.exercise / "exercise.json") << "{ \"format\": ";
        const ProcessResult result =
            run_command(course_command(course, "check " + quote(course.exercise) + " " + quote(project)));
        INFO(result.output);
        CHECK(result.exit_code == 1);
        CHECK_THAT(result.output, Catch::Contains((course.exercise / "exercise.json").string()));
        CHECK_THAT(result.output, !Catch::Contains("usage:"));
    }
    SECTION("a project for another dataset is named, with status 1") {
        nlohmann::json json = nlohmann::json::parse(std::ifstream(project));
        json["dataset"] = {{"name", "fashion-mnist"}};
        std::ofstream(project) << json.dump(2);
        const ProcessResult result = run_command(course_command(course, "check stripes-01 " + quote(project)));
        INFO(result.output);
        CHECK(result.exit_code == 1);
        CHECK_THAT(result.output, Catch::Contains(project.string()));
        CHECK_THAT(result.output, !Catch::Contains("usage:"));
    }
}

TEST_CASE("course validate passes a good exercise and refuses one whose starter already passes", "[cli][course]") {
    TempDir dir("cli-course-validate");
    const StripesCourse course = write_stripes_course(dir.path());
    const ProcessResult good = run_command(backprop("course validate " + quote(course.exercise)));
    INFO(good.output);
    CHECK(good.exit_code == 0);
    CHECK_THAT(good.output, Catch::StartsWith(course.exercise.string() + ": valid\n"));

    // The course folder: every exercise in it.
    const ProcessResult whole = run_command(backprop("course validate " + quote(course.root)));
    INFO(whole.output);
    CHECK(whole.exit_code == 0);
    CHECK_THAT(whole.output, Catch::EndsWith("1 of 1 exercise valid\n"));

    // A starter that is already the solution teaches nothing.
    std::filesystem::copy_file(course.exercise / "solution.json", course.exercise / "starter.json",
                               std::filesystem::copy_options::overwrite_existing);
    const ProcessResult lazy = run_command(backprop("course validate " + quote(course.exercise)));
    INFO(lazy.output);
    CHECK(lazy.exit_code == 1);
    CHECK_THAT(lazy.output, Catch::Contains(course.exercise.string() + ": NOT valid\n"));
    CHECK_THAT(lazy.output,
               Catch::Contains("  PROBLEM  " + (course.exercise / "solution.json").string() +
                               ": the solution is the starter unchanged; the learner would have nothing to do\n"));
    const ProcessResult whole_lazy = run_command(backprop("course validate " + quote(course.root)));
    CHECK(whole_lazy.exit_code == 1);
    CHECK_THAT(whole_lazy.output, Catch::EndsWith("0 of 1 exercise valid\n"));
}

TEST_CASE("course validate refuses an exercise whose starter passes every check", "[cli][course]") {
    TempDir dir("cli-course-validate-starter");
    // Structure checks only, and a starter that differs from the solution only in its learning
    // rate: it passes them all, so the learner would have nothing to do.
    const StripesCourse course = write_stripes_course(dir.path(), [](nlohmann::json& exercise) {
        exercise["steps"] = nlohmann::json::array({exercise["steps"][0]});
    });
    nlohmann::json starter = nlohmann::json::parse(std::ifstream(course.exercise / "solution.json"));
    starter["training"]["optimizer"]["learning_rate"] = 0.01;
    std::ofstream(course.exercise / "starter.json") << starter.dump(2);
    const ProcessResult result = run_command(backprop("course validate " + quote(course.exercise)));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("  PROBLEM  " + (course.exercise / "starter.json").string() +
                                              ": the starter passes every check; the learner would have nothing to "
                                              "do\n"));
}

TEST_CASE("course check refuses a run folder with no evaluation where a check needs one", "[cli][course]") {
    TempDir dir("cli-course-no-evaluation");
    // The least accurate class is read from the run's evaluation.
    const StripesCourse course = write_stripes_course(dir.path(), [](nlohmann::json& exercise) {
        exercise["steps"][2]["checks"] = nlohmann::json::parse(
            R"([{"kind": "interpretation", "type": "least_accurate_class", "pass": "Recall differs by class."}])");
    });
    const std::filesystem::path project =
        learner_copy(course.exercise / "solution.json", dir.path() / "learner", "stripes.json");
    train(project, "--epochs 2");
    const std::filesystem::path run = runs_of(project)[0]["folder"].get<std::string>();
    REQUIRE(std::filesystem::remove(run / "evaluation.json"));
    const ProcessResult result =
        run_command(course_command(course, "check stripes-01 " + quote(project) + " --answer best=rows"));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output,
               Catch::Contains("backprop course: error: " + run.string() +
                               " has no evaluation.json: this run ended before its test, or is from an older "
                               "version; train again or use Evaluate now in the Results tab\n"));
}

TEST_CASE("course check trains the sanity checks on a device, unless --no-sanity", "[cli][course]") {
    TempDir dir("cli-course-sanity");
    const StripesCourse course = write_stripes_course(dir.path(), [](nlohmann::json& exercise) {
        exercise["steps"] = nlohmann::json::array({exercise["steps"][0]});
        exercise["steps"][0]["checks"].push_back(
            {{"kind", "sanity"}, {"type", "first_loss"}, {"value", 0.3}, {"pass", "A fair first guess."}});
    });
    const std::filesystem::path project =
        learner_copy(course.exercise / "solution.json", dir.path() / "learner", "stripes.json");

    const ProcessResult skipped =
        run_command_stdout(course_command(course, "check stripes-01 " + quote(project) + " --no-sanity --json"));
    INFO(skipped.output);
    CHECK(skipped.exit_code == 1);  // a check that did not run did not pass
    const nlohmann::json not_run = nlohmann::json::parse(skipped.output)["checks"][2];
    CHECK(not_run["type"] == "first_loss");
    CHECK(not_run["status"] == "missing");
    CHECK(not_run["found"] == "");

    const ProcessResult trained =
        run_command_stdout(course_command(course, "check stripes-01 " + quote(project) + " --json"));
    INFO(trained.output);
    const nlohmann::json ran = nlohmann::json::parse(trained.output)["checks"][2];
    CHECK(ran["expected"] == "near ln(2) = 0.69 (within 0.3)");
    // 0.84 on PoCL at the project's seed: a fair first guess between two classes.
    CHECK(std::stod(ran["found"].get<std::string>()) == Approx(0.84).margin(0.1));
    CHECK(ran["status"] == "passed");
    CHECK(trained.exit_code == 0);
}
