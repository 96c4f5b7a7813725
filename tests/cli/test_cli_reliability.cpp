// What a learner's mistakes and damaged inputs get from the CLI: a refusal in bounded time and
// memory with a message that names the setting, file or layer at fault. Each case is a finding
// of the reliability review (issue 26), run on the small stripes project.
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

// The stripes project with `change` applied to its JSON.
template <typename Change>
std::filesystem::path changed_project(const TempDir& dir, Change change) {
    return changed_stripes_project(dir.path(), 4, change);
}

// h5py (an independent reader) finds float arrays in `weights`, every value of them finite.
void check_finite_arrays(const std::filesystem::path& weights) {
    const ProcessResult finite = run_command(
        "/usr/bin/python3 -c \"import h5py, numpy, sys; f = h5py.File(sys.argv[1], 'r'); arrays = []; "
        "f.visititems(lambda name, item: arrays.append(item[()]) if isinstance(item, h5py.Dataset) and "
        "item.dtype.kind == 'f' else None); print(len(arrays), all(numpy.isfinite(a).all() for a in arrays))\" " +
        quote(weights));
    INFO(finite.output);
    CHECK(finite.exit_code == 0);
    CHECK_THAT(finite.output, Catch::EndsWith(" True\n"));
    CHECK_FALSE(Catch::StartsWith("0 ").match(finite.output));
}

}  // namespace

TEST_CASE("learning rates outside 0 to 10 are refused, from --lr and from the project file", "[cli][reliability]") {
    TempDir dir("cli-lr-range");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json&) {});
    // 1e39 is infinity as a float32, 1e-50 is 0: both passed before.
    for (const auto& [given, shown] : {std::pair{"1e39", "1e+39"}, {"1e-50", "1e-50"}, {"10.5", "10.5"}}) {
        const ProcessResult result = run_command(backprop("train " + quote(project) + " --batches 1 --lr " + given));
        INFO(result.output);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::StartsWith(std::string("backprop train: --lr needs a learning rate above 0 "
                                                                "and at most 10, not ") +
                                                    shown + "\n"));
    }
    const ProcessResult highest = run_command(backprop("train " + quote(project) + " --batches 1 --lr 10"));
    INFO(highest.output);
    CHECK(highest.exit_code == 0);

    const std::filesystem::path too_fast =
        changed_project(dir, [](nlohmann::json& p) { p["training"]["optimizer"]["learning_rate"] = 1e39; });
    const ProcessResult result = run_command(backprop("summary " + quote(too_fast)));
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output,
               Catch::Contains(too_fast.string() + ": training.optimizer.learning_rate must be a number above 0 and at "
                                                   "most 10, not 1e+39"));
}

TEST_CASE("a project 'file' that never ends or is huge is refused after 16 MiB, naming it", "[cli][reliability]") {
    TempDir dir("cli-project-size");
    // /dev/zero used to be read until memory ran out; 60 s is far more than the refusal takes. A
    // device is now refused before it is read; an endless pipe is read up to the cap.
    const ProcessResult endless = run_command("bash -c '" + backprop("summary <(cat /dev/zero)'"), 60);
    CHECK(endless.exit_code == 1);
    CHECK_THAT(endless.output, Catch::Matches("backprop summary: error: /dev/fd/[0-9]+: is larger than 16 MiB, far "
                                              "more than any project file; is it the right file\\?\n"));

    const std::filesystem::path large = dir.path() / "large.json";
    {
        std::ofstream out(large);
        out << "{\"name\": \"" << std::string((std::size_t{16} << 20) + 1, 'x') << "\"}";
    }
    const ProcessResult result = run_command(backprop("train " + quote(large)), 60);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains(large.string() + ": is larger than 16 MiB"));
}

TEST_CASE("BACKPROP_DEVICE chooses the device of train, evaluate and predict, as --device does", "[cli][reliability]") {
    TempDir dir("cli-device-env");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json&) {});
    const std::filesystem::path weights = dir.path() / "weights.h5";
    REQUIRE(
        run_command(backprop("train " + quote(project) + " --batches 1 --save-weights " + quote(weights))).exit_code ==
        0);
    const std::string image = quote(dir.path() / "images" / "rows" / "0.png");

    ScopedEnvironment device("BACKPROP_DEVICE", "no-such-device");
    for (const std::string& command : {"train " + quote(project) + " --batches 1", "evaluate " + quote(weights),
                                       "predict " + quote(weights) + " " + image}) {
        const ProcessResult result = run_command(backprop(command));
        INFO(command << "\n" << result.output);
        CHECK(result.exit_code != 0);
        CHECK_THAT(result.output, Catch::Contains("no OpenCL device matches 'no-such-device'"));
    }
    // The flag still wins over the variable.
    const ProcessResult flagged = run_command(backprop("evaluate " + quote(weights) + " --device 0"));
    INFO(flagged.output);
    CHECK(flagged.exit_code == 0);
}

TEST_CASE("an input of 10^10 pixels is refused by summary with its size, not shown as an overflowed Flatten",
          "[cli][reliability]") {
    TempDir dir("cli-overflow");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json& p) {
        p["dataset"]["image_size"] = {100000, 100000};
    });
    const ProcessResult result = run_command(backprop("summary " + quote(project)));
    CHECK(result.exit_code == 1);
    CHECK(result.output == "backprop summary: error: " + project.string() +
                               ": Input 'input': its output (1, 100000, 100000) holds 10000000000 values per image, "
                               "more than one tensor can hold (2147483647); use smaller images\n");
    CHECK_THAT(result.output, !Catch::Contains("1410065408"));
}

TEST_CASE("a Conv2D too large for the device's indexing names the project and the layer", "[cli][reliability]") {
    TempDir dir("cli-huge-conv");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json& p) {
        // 10^7 filters of 8x8: 6.4e8 values per image, so a batch of 8 needs 5.1e9 (past int);
        // the pooling after it keeps the next layers small.
        nlohmann::json& nodes = p["network"]["nodes"];
        const nlohmann::json wide = {
            {"name", "wide"}, {"type", "Conv2D"}, {"params", {{"filters", 10000000}, {"padding", "same"}}}};
        const nlohmann::json pool = {{"name", "pool"}, {"type", "GlobalAveragePooling2D"}};
        nodes.insert(nodes.begin() + 1, wide);
        nodes.insert(nodes.begin() + 2, pool);
        nlohmann::json& edges = p["network"]["edges"];
        edges[0] = {{"from", "input"}, {"to", "wide"}};
        edges.push_back({{"from", "wide"}, {"to", "pool"}});
        edges.push_back({{"from", "pool"}, {"to", "flatten"}});
    });
    const ProcessResult result = run_command(backprop("train " + quote(project) + " --batches 1"));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("backprop train: error: " + project.string() + ": Conv2D 'wide': ") &&
                                  Catch::Contains("more than one kernel can index") &&
                                  Catch::Contains("use fewer filters, a smaller batch or smaller images"));
}

TEST_CASE("a validation fraction that leaves no training image names the setting", "[cli][reliability]") {
    TempDir dir("cli-validation-all");
    const std::filesystem::path project =
        changed_project(dir, [](nlohmann::json& p) { p["dataset"]["validation_fraction"] = 0.999; });
    const ProcessResult result = run_command(backprop("train " + quote(project) + " --batches 1"));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("the validation fraction (dataset.validation_fraction 0.999) holds out "
                                              "all 8 training images, leaving none to train on; lower it"));
}

TEST_CASE("a device fault stops a CLI run in plain words, keeps the weights, and the next run works",
          "[cli][reliability]") {
    TempDir dir("cli-device-fault");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json&) {});
    const std::filesystem::path weights = dir.path() / "kept.h5";
    // The device's self-test (before its first training) is done, so the counts below are training's.
    REQUIRE(run_command(backprop("devices --check")).exit_code == 0);
    ProcessResult failed;
    {
        // The 40th kernel launch falls in the second or third batch of this small network.
        ScopedEnvironment fault("BACKPROP_INJECT_FAULT", "enqueue:40");
        failed = run_command(backprop("train " + quote(project) + " --save-weights " + quote(weights)));
    }
    INFO(failed.output);
    CHECK(failed.exit_code == 1);
    CHECK_THAT(failed.output,
               Catch::Contains("backprop train: error: the device '") &&
                   Catch::Contains("' failed during training, after ") &&
                   Catch::Contains("(clEnqueueNDRangeKernel failed with CL_OUT_OF_RESOURCES (-5)") &&
                   Catch::Contains(" of this run are saved in " + dir.path().string() + "/kept.rescued-after-"));
    // Saved beside the file named, which only a run that ends well writes.
    const std::filesystem::path rescued = rescue_named(failed.output, weights);
    CHECK_FALSE(std::filesystem::exists(weights));
    const ProcessResult evaluated = run_command(backprop("evaluate " + quote(rescued)));
    INFO(evaluated.output);
    CHECK(evaluated.exit_code == 0);
    CHECK_THAT(evaluated.output, Catch::Contains("accuracy"));

    ScopedEnvironment wrong("BACKPROP_INJECT_FAULT", "read:1:CL_INVALID_COMMAND_QUEUE");
    const ProcessResult read = run_command(backprop("train " + quote(project)));
    INFO(read.output);
    CHECK(read.exit_code == 1);
    CHECK_THAT(read.output, Catch::Contains("(clEnqueueReadBuffer failed with CL_INVALID_COMMAND_QUEUE (-36)"));
}

TEST_CASE("a diverging run stops with advice, exits 1 and keeps its last finite weights, which predict uses",
          "[cli][reliability]") {
    TempDir dir("cli-divergence");
    // The most a run accepts, with a weight decay that turns every step into w -= 10 * (g + 10 w),
    // about w * -99: the weights overflow within a few dozen batches, whatever the data.
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json& p) {
        p["training"]["optimizer"]["learning_rate"] = 10;
        p["training"]["optimizer"]["weight_decay"] = 10;
        p["training"]["epochs"] = 40;  // one batch an epoch
    });
    const std::filesystem::path weights = dir.path() / "kept.h5";
    const ProcessResult run = run_command(backprop("train " + quote(project) + " --save-weights " + quote(weights)));
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Catch::Contains("the loss grew to ") && Catch::Contains("at learning rate 10: ") &&
                               Catch::Contains("lower learning rate (try 1)") && Catch::Contains("normalised") &&
                               Catch::Contains(", the last known to be finite, are saved in " + dir.path().string() +
                                               "/kept.last-finite-after-"));
    // Before, the run went on, saved NaN weights, exited 0, and predict printed -nan.
    const std::filesystem::path rescued = rescue_named(run.output, weights);
    REQUIRE(std::filesystem::exists(rescued));
    check_finite_arrays(rescued);
    const ProcessResult predicted =
        run_command(backprop("predict " + quote(rescued) + " " + quote(dir.path() / "images" / "rows" / "0.png")));
    INFO(predicted.output);
    CHECK(predicted.exit_code == 0);
    CHECK_THAT(predicted.output, Catch::Contains("0.png: "));
    CHECK_THAT(predicted.output, !Catch::Contains("nan"));
}

TEST_CASE(
    "a kernel that never ends is ended by the watchdog with a message and the last weights copied, and the "
    "process exits",
    "[cli][reliability]") {
    TempDir dir("cli-watchdog");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json&) {});
    const std::filesystem::path weights = dir.path() / "kept.h5";
    // The 60th kernel launch waits forever, well after the first step (which compiles); the
    // watchdog's bound is 2 s instead of 60. Before the watchdog this run never ended. The
    // device's self-test is done first, so the 60th launch is training's.
    REQUIRE(run_command(backprop("devices --check")).exit_code == 0);
    const ProcessResult run = run_command("BACKPROP_WATCHDOG_SECONDS=2 BACKPROP_INJECT_FAULT=hang:60 " +
                                              backprop("train " + quote(project) + " --save-weights " + quote(weights)),
                                          120);
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Catch::Contains("backprop train: error: the device '") &&
                               Catch::Contains("' stopped responding during training: it finished no work for ") &&
                               Catch::Contains("so the run was ended; ") &&
                               Catch::Contains(" of this run, the last copied from the device, are saved in " +
                                               dir.path().string() + "/kept.rescued-after-"));
    // The process ends at once, without waiting for the device: the file was whole before.
    check_finite_arrays(rescue_named(run.output, weights));

    const ProcessResult refused = run_command("BACKPROP_WATCHDOG_SECONDS=soon " + backprop("train " + quote(project)));
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.output, Catch::Contains("BACKPROP_WATCHDOG_SECONDS must be a whole number of seconds from 0 "
                                               "(no watchdog) to 86400, not 'soon'"));
}

TEST_CASE(
    "a device whose compiler kills the program twice, and a separate build too, is skipped with how to enable it, and "
    "devices --enable does",
    "[cli][reliability][crash-guard]") {
    TempDir dir("cli-crash-guard");
    // Caches of its own, PoCL's too: the guard empties the driver cache in use (the one the suite's
    // POCL_CACHE_DIR names, which the tests running beside this one read), and marks the device.
    const std::string cache =
        "BACKPROP_CACHE_DIR=" + quote(dir.path() / "cache") + " POCL_CACHE_DIR=" + quote(dir.path() / "pocl") + " ";
    // The program dies in its first program build, as a crashing driver compiler would: twice.
    for (int run = 0; run < 2; ++run) {
        const ProcessResult died = run_command(cache + "BACKPROP_INJECT_FAULT=crash:1 " + backprop("cache warm"));
        INFO(died.output);
        CHECK(died.exit_code != 0);
        CHECK(died.exit_code != 1);  // killed, not an error it reported
    }
    // The compiler crashes again in the separate build the guard makes before it skips the device.
    const ProcessResult third = run_command(cache + "BACKPROP_INJECT_FAULT=crash:1 " + backprop("cache warm"));
    INFO(third.output);
    CHECK(third.exit_code == 1);
    CHECK_THAT(third.output,
               Catch::Contains("note: an earlier run (process ") &&
                   Catch::Contains(" is skipped from now on: the program died while building kernels "
                                   "for it (processes ") &&
                   Catch::Contains("also after its caches were cleared, and so did a build in a separate process; "
                                   "run 'backprop devices --enable "));
    CHECK_THAT(third.output, !Catch::Contains("built from source"));

    const ProcessResult train = run_command(cache + backprop("train mlp --batches 1"));
    CHECK(train.exit_code == 1);
    CHECK_THAT(train.output, Catch::Contains("backprop train: error: every OpenCL device is skipped; device "));
    const ProcessResult listed = run_command(cache + backprop("devices"));
    CHECK(listed.exit_code == 0);
    CHECK_THAT(listed.output, Catch::Contains(" is skipped: the program died while building kernels for it"));

    const ProcessResult enabled = run_command(cache + backprop("devices --enable 0"));
    INFO(enabled.output);
    CHECK(enabled.exit_code == 0);
    CHECK_THAT(enabled.output, Catch::EndsWith(" is used again\n"));
    const ProcessResult usable = run_command(cache + backprop("devices --json"));
    const nlohmann::json facts = nlohmann::json::parse(usable.output);
    CHECK(facts["chosen"] == 0);
    CHECK(facts["devices"][0]["skipped"].is_null());
}
