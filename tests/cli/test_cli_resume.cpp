// backprop train --checkpoint and backprop resume as a learner runs them: two epochs, then two more
// from the checkpoint, give exactly the weights of four epochs in one go (the same test accuracy
// and loss to every digit); a finished checkpoint and a plain weights file are refused with what to do.
#include <catch2/catch.hpp>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

TEST_CASE("training resumed from a checkpoint ends where an uninterrupted run ends", "[cli][resume]") {
    TempDir dir("cli-resume");
    write_stripes(dir.path() / "images", 12);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path straight = dir.path() / "straight.h5", resumed = dir.path() / "resumed.h5";
    const std::filesystem::path checkpoint = dir.path() / "run.h5";

    REQUIRE(
        run_command(backprop("train " + quote(project) + " --epochs 4 --save-weights " + quote(straight))).exit_code ==
        0);
    const ProcessResult first =
        run_command_stdout(backprop("train " + quote(project) + " --epochs 2 --checkpoint " + quote(checkpoint)));
    INFO(first.output);
    REQUIRE(first.exit_code == 0);
    CHECK_THAT(first.output, Catch::Contains("checkpoint saved to " + checkpoint.string() +
                                             " (go on with 'backprop resume " + checkpoint.string() + "')"));
    const ProcessResult rest =
        run_command_stdout(backprop("resume " + quote(checkpoint) + " --epochs 4 --save-weights " + quote(resumed)));
    INFO(rest.output);
    REQUIRE(rest.exit_code == 0);
    // Only epochs 3 and 4 were trained.
    CHECK_THAT(rest.output, Catch::Contains("epoch 3/4: "));
    CHECK_THAT(rest.output, !Catch::Contains("epoch 2/4: "));

    const ProcessResult a = run_command_stdout(backprop("evaluate " + quote(straight)));
    const ProcessResult b = run_command_stdout(backprop("evaluate " + quote(resumed)));
    REQUIRE(a.exit_code == 0);
    CHECK_THAT(a.output, Catch::StartsWith("accuracy "));
    CHECK(b.output == a.output);

    // The checkpoint now ends at epoch 4: nothing is left unless more epochs are asked for.
    const ProcessResult done = run_command(backprop("resume " + quote(checkpoint)));
    CHECK(done.exit_code == 1);
    CHECK_THAT(done.output, Catch::Contains(checkpoint.string() +
                                            ": has already trained 4 of 4 epochs: nothing is left to train; ask for "
                                            "more epochs (backprop resume --epochs N) to train further"));
    const ProcessResult weights = run_command(backprop("resume " + quote(straight)));
    CHECK(weights.exit_code == 1);
    CHECK(weights.output == "backprop resume: error: " + straight.string() +
                                ": holds weights but no training state, so training cannot go on from it; it is a "
                                "weights file (train with '--checkpoint FILE' to keep checkpoints)\n");
    const ProcessResult nothing = run_command(backprop("resume"));
    CHECK(nothing.exit_code == 2);
    CHECK_THAT(nothing.output, Catch::StartsWith("backprop resume: which checkpoint?"));
}
