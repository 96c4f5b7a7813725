// A failed or mistaken command never replaces good work (issue 46): a failed run saves what it kept
// beside the file it was to write, no output may name an input or another output of the same
// command, empty file names are refused, and a reader that goes away stops the printing, not the
// training.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli.h"
#include "tests/cli/rescued_weights.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

// The stripes project, trained for a few epochs into `weights` (no run folder: only the files named).
std::filesystem::path stripes_in(const TempDir& dir) {
    write_stripes(dir.path() / "images", 4);
    return write_project(dir.path(), dir.path() / "images");
}

void train_into(const std::filesystem::path& project, const std::filesystem::path& weights) {
    const ProcessResult trained = run_command(
        backprop("train " + quote(project) + " --epochs 3 --no-run-folder --save-weights " + quote(weights)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
}

// The stripes project at the most a run accepts, with a weight decay that makes every step
// w -= 10 * (g + 10 w): the weights blow up within a few dozen batches, whatever the data.
std::filesystem::path diverging_project(const TempDir& dir) {
    const std::filesystem::path file = dir.path() / "diverging.json";
    nlohmann::json project = nlohmann::json::parse(std::ifstream(stripes_in(dir)));
    project["training"]["optimizer"]["learning_rate"] = 10;
    project["training"]["optimizer"]["weight_decay"] = 10;
    project["training"]["epochs"] = 40;
    std::ofstream(file) << project.dump(2);
    return file;
}

std::size_t files_starting(const std::filesystem::path& folder, const std::string& prefix) {
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().filename().string().rfind(prefix, 0) == 0) ++count;
    return count;
}

}  // namespace

TEST_CASE(
    "a failed run keeps the trained weights it was to replace and saves its own beside them, under a name "
    "that says what they are",
    "[cli][reliability][outputs]") {
    TempDir dir("cli-failed-run-keeps");
    const std::filesystem::path project = diverging_project(dir);
    const std::filesystem::path weights = dir.path() / "model.h5";
    train_into(dir.path() / "stripes.json", weights);
    const std::string trained = file_bytes(weights);

    const ProcessResult failed =
        run_command(backprop("train " + quote(project) + " --no-run-folder --save-weights " + quote(weights)));
    INFO(failed.output);
    CHECK(failed.exit_code == 1);
    CHECK_THAT(failed.output,
               Catch::Contains("the training diverged") && Catch::Contains(", the last known to be finite,"));
    // Before, the rescued weights (often the starting ones) replaced the trained file.
    CHECK(file_bytes(weights) == trained);
    const std::filesystem::path rescued = rescue_named(failed.output, weights);
    CHECK(rescued.parent_path() == weights.parent_path());
    CHECK_THAT(rescued.filename().string(), Catch::Matches(R"(model\.last-finite-after-[0-9]+-batch(es)?\.h5)"));
    const std::string first_rescue = file_bytes(rescued);
    REQUIRE_FALSE(first_rescue.empty());
    const ProcessResult evaluated = run_command(backprop("evaluate " + quote(rescued)));
    INFO(evaluated.output);
    CHECK(evaluated.exit_code == 0);

    // The same failure again: a third file, and neither earlier one changes.
    const ProcessResult again =
        run_command(backprop("train " + quote(project) + " --no-run-folder --save-weights " + quote(weights)));
    INFO(again.output);
    CHECK(again.exit_code == 1);
    const std::filesystem::path second = rescue_named(again.output, weights);
    CHECK(second != rescued);
    CHECK(file_bytes(rescued) == first_rescue);
    CHECK(file_bytes(weights) == trained);
    CHECK(files_starting(dir.path(), "model.last-finite-after-") == 2);
}

TEST_CASE("export never writes a script over the weights it reads, nor two scripts into one file",
          "[cli][reliability][outputs]") {
    TempDir dir("cli-export-clash");
    const std::filesystem::path weights = dir.path() / "model.h5";
    train_into(stripes_in(dir), weights);
    const std::string before = file_bytes(weights);
    for (const std::string option : {"--pytorch", "--keras"}) {
        const ProcessResult over =
            run_command(backprop("export " + quote(weights) + " " + option + " " + quote(weights)));
        INFO(over.output);
        CHECK(over.exit_code == 2);
        CHECK_THAT(over.output, Catch::Contains(option + " " + weights.string() +
                                                " is the weights file that this command reads; write the script under "
                                                "another name"));
        CHECK(file_bytes(weights) == before);
    }
    const std::filesystem::path script = dir.path() / "net.py";
    const ProcessResult both = run_command(backprop("export " + quote(weights) + " --pytorch " + quote(script) +
                                                    " --keras " + quote(dir.path() / "." / "net.py")));
    INFO(both.output);
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.output,
               Catch::Contains("--pytorch and --keras would both write " + (dir.path() / "." / "net.py").string() +
                               "; give each script its own name"));
    CHECK_FALSE(std::filesystem::exists(script));
    const ProcessResult empty = run_command(backprop("export " + quote(weights) + " --pytorch ''"));
    CHECK(empty.exit_code == 2);
    CHECK_THAT(empty.output, Catch::Contains("--pytorch needs a file name, not an empty one"));
}

TEST_CASE(
    "train and resume refuse outputs that name their inputs or each other, and empty file names, before "
    "touching any file",
    "[cli][reliability][outputs]") {
    TempDir dir("cli-train-clash");
    const std::filesystem::path project = stripes_in(dir);
    const std::filesystem::path weights = dir.path() / "model.h5", checkpoint = dir.path() / "state.h5";
    const ProcessResult trained =
        run_command(backprop("train " + quote(project) + " --epochs 2 --no-run-folder --save-weights " +
                             quote(weights) + " --checkpoint " + quote(checkpoint)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    const std::string weights_before = file_bytes(weights), checkpoint_before = file_bytes(checkpoint);
    const auto refused = [&](const std::string& arguments, const std::string& message) {
        const ProcessResult result = run_command(backprop(arguments));
        INFO(arguments << "\n" << result.output);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::Contains(message));
        CHECK_THAT(result.output, !Catch::Contains("training '"));
        CHECK(file_bytes(weights) == weights_before);
        CHECK(file_bytes(checkpoint) == checkpoint_before);
    };
    // Before, this turned the checkpoint into plain weights, then said to go on with resume.
    refused("resume " + quote(checkpoint) + " --save-weights " + quote(checkpoint),
            "--save-weights " + checkpoint.string() + " is the checkpoint that this command reads");
    refused("resume " + quote(checkpoint) + " --checkpoint " + quote(weights) + " --save-weights " + quote(weights),
            "--checkpoint and --save-weights would both write " + weights.string());
    refused("train " + quote(project) + " --save-weights " + quote(weights) + " --checkpoint " + quote(weights),
            "--save-weights and --checkpoint would both write " + weights.string());
    // Before, these trained from new weights over the very file they came from.
    refused("train " + quote(checkpoint) + " --checkpoint " + quote(checkpoint),
            "--checkpoint " + checkpoint.string() + " is the file that this command reads");
    refused("train " + quote(weights) + " --save-weights " + quote(weights),
            "--save-weights " + weights.string() + " is the file that this command reads");
    refused("train " + quote(project) + " --save-weights ''", "--save-weights needs a file name, not an empty one");
    refused("train " + quote(project) + " --checkpoint=", "--checkpoint needs a file name, not an empty one");
    refused("resume " + quote(checkpoint) + " --save-weights ''", "--save-weights needs a file name, not an empty one");

    // A checkpoint given to train is trained from new weights, and the learner is told how to go on instead.
    const ProcessResult fresh = run_command(backprop("train " + quote(checkpoint) + " --batches 1 --no-run-folder"));
    INFO(fresh.output);
    CHECK(fresh.exit_code == 0);
    CHECK_THAT(fresh.output, Catch::Contains("note: " + checkpoint.string() +
                                             " is a checkpoint: 'backprop train' trains its project from new weights; "
                                             "'backprop resume " +
                                             checkpoint.string() + "' goes on where it stopped"));
    const ProcessResult from_weights =
        run_command(backprop("train " + quote(weights) + " --batches 1 --no-run-folder"));
    CHECK_THAT(from_weights.output, Catch::Contains("note: " + weights.string() +
                                                    " is a weights file: 'backprop train' trains its project "
                                                    "from new weights"));
}

TEST_CASE("a reader that goes away stops the printing, not the training: the weights are still saved",
          "[cli][reliability][outputs]") {
    TempDir dir("cli-closed-pipe");
    const std::filesystem::path project = stripes_in(dir);
    const std::filesystem::path weights = dir.path() / "model.h5";
    // stdout and stderr are a pipe whose reading end is closed before the program starts, as after
    // `| head -1` has had its line: every write fails. Python's subprocess gives the child the
    // default SIGPIPE action, as a shell does. Before, the run died of SIGPIPE (-13) and saved nothing.
    const ProcessResult run = run_command(
        "/usr/bin/python3 -c \"import os, subprocess, sys; r, w = os.pipe(); os.close(r); "
        "print(subprocess.call(sys.argv[1:], stdout=w, stderr=w))\" \"" BACKPROP_CLI "\" train " +
        quote(project) + " --epochs 2 --no-run-folder --save-weights " + quote(weights));
    INFO(run.output);
    CHECK(run.output == "0\n");
    REQUIRE(std::filesystem::exists(weights));
    const ProcessResult evaluated = run_command(backprop("evaluate " + quote(weights)));
    INFO(evaluated.output);
    CHECK(evaluated.exit_code == 0);
}
