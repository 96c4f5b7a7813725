// Saves never lose work, tried as a learner would: a destination that cannot be written is refused
// before training (not after it), the project file is never overwritten with weights, a class
// folder whose name is not UTF-8 still saves, and a disk that fills up during the save gives a
// clear message, a clean exit and the earlier weights file untouched.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

struct Stripes {
    TempDir dir{"cli-saving"};
    std::filesystem::path project;
    Stripes() {
        write_stripes(dir.path() / "images", 8);
        project = write_project(dir.path(), dir.path() / "images");
    }
    ProcessResult train_to(const std::filesystem::path& weights, const std::string& before = "") const {
        return run_command(before +
                           backprop("train " + quote(project) + " --epochs 1 --save-weights " + quote(weights)));
    }
};

}  // namespace

TEST_CASE("weights written over the project file are refused before training, and the project is kept",
          "[cli][saving]") {
    const Stripes run;
    const std::string before = read_text(run.project);
    const ProcessResult result = run.train_to(run.project);
    CHECK(result.exit_code == 1);
    CHECK(result.output == "backprop train: error: " + run.project.string() +
                               ": is the project file itself; save the weights under another name, e.g. stripes.h5\n");
    CHECK(read_text(run.project) == before);
}

#ifndef _WIN32
TEST_CASE("a destination that cannot be written is refused before training", "[cli][saving]") {
    const Stripes run;
    const ProcessResult device = run.train_to("/dev/full");
    CHECK(device.exit_code == 1);
    CHECK(device.output ==
          "backprop train: error: /dev/full: is not a regular file (a device or another special "
          "file); give a file name, e.g. weights.h5\n");
    // Even root cannot create files in /proc.
    const ProcessResult folder = run.train_to("/proc/weights.h5");
    CHECK(folder.exit_code == 1);
    CHECK_THAT(folder.output,
               Catch::StartsWith("backprop train: error: /proc/weights.h5: the folder '/proc' cannot be written to ("));
    CHECK_THAT(folder.output, !Catch::Contains("epoch 1/1"));  // refused before any training
}

TEST_CASE("a class folder whose name is not UTF-8 trains, saves and predicts", "[cli][saving]") {
    const Stripes run;
    // "caf\xe9" is Latin-1 for café: valid as a file name, not as UTF-8.
    std::filesystem::rename(run.dir.path() / "images" / "rows", run.dir.path() / "images" / "caf\xe9");
    const std::filesystem::path weights = run.dir.path() / "w.h5";
    const ProcessResult trained = run.train_to(weights);
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("weights saved to " + weights.string()));
    const ProcessResult predicted = run_command_stdout(
        backprop("predict " + quote(weights) + " " + quote(run.dir.path() / "images" / "columns" / "0.png")));
    REQUIRE(predicted.exit_code == 0);
    CHECK_THAT(predicted.output, Catch::Contains("caf\xEF\xBF\xBD"));  // the byte shown as U+FFFD
}

TEST_CASE("a disk that fills up during the save: a clear message, a clean exit, the earlier file intact",
          "[cli][saving]") {
    const Stripes run;
    const std::filesystem::path disk = run.dir.path() / "small-disk";
    std::filesystem::create_directories(disk);
    // A small filesystem of its own needs the privilege to mount one; without it there is no
    // honest way to fill a disk here, and the test says so.
    const ProcessResult mounted = run_command("mount -t tmpfs -o size=256k tmpfs " + quote(disk));
    if (mounted.exit_code != 0) {
        WARN("skipped: this machine does not allow mounting a small tmpfs (" + mounted.output + ")");
        return;
    }
    struct Unmount {
        std::filesystem::path disk;
        ~Unmount() { run_command("umount " + quote(disk)); }
    } unmount{disk};

    const std::filesystem::path weights = disk / "w.h5";
    REQUIRE(run.train_to(weights).exit_code == 0);
    const std::string before = read_text(weights);
    // Fill what is left of the disk.
    run_command("cat /dev/zero > " + quote(disk / "filler"));
    const ProcessResult full = run.train_to(weights);
    INFO(full.output);
    CHECK(full.exit_code == 1);  // a clean failure, not a crash in HDF5's shutdown (139)
    CHECK_THAT(full.output, Catch::Contains("backprop train: error: " + weights.string() +
                                            ": could not be written (the disk is full); nothing was replaced, so an "
                                            "earlier file of this name is unchanged"));
    CHECK(read_text(weights) == before);
    for (const auto& entry : std::filesystem::directory_iterator(disk))
        CHECK(entry.path().filename().string().find(".part") == std::string::npos);
}
#endif

// A 1x1 Conv2D's weight {filters, channels, 1, 1} is saved with its layer's dims, not taken for a
// Dense weight: the run saves its weights and checkpoint, predicts with them and resumes.
TEST_CASE("a network with a 1x1 convolution saves its weights and checkpoint, predicts and resumes", "[cli][saving]") {
    TempDir dir("cli-saving-conv1x1");
    const std::filesystem::path project = changed_stripes_project(dir.path(), 8, [](nlohmann::json& json) {
        nlohmann::json& network = json["network"];
        network["nodes"].push_back(
            {{"name", "mix"}, {"type", "Conv2D"}, {"params", {{"filters", 4}, {"kernel", {1, 1}}}}});
        network["edges"][0]["to"] = "mix";
        network["edges"].push_back({{"from", "mix"}, {"to", "flatten"}});
    });
    const std::filesystem::path weights = dir.path() / "w.h5", checkpoint = dir.path() / "run.h5";
    const ProcessResult trained = run_command(backprop("train " + quote(project) + " --epochs 1 --save-weights " +
                                                       quote(weights) + " --checkpoint " + quote(checkpoint)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("weights saved to " + weights.string()));
    for (const std::filesystem::path& file : {weights, checkpoint}) {
        const ProcessResult predicted = run_command_stdout(
            backprop("predict " + quote(file) + " " + quote(dir.path() / "images" / "rows" / "0.png")));
        INFO(predicted.output);
        CHECK(predicted.exit_code == 0);
        CHECK_THAT(predicted.output, Catch::Contains("rows"));
    }
    const ProcessResult resumed = run_command_stdout(backprop("resume " + quote(checkpoint) + " --epochs 2"));
    INFO(resumed.output);
    CHECK(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Catch::Contains("epoch 2/2: "));
}
