// Divergence that slipped through (issue 46): a loss that explodes but stays finite, and a
// checkpoint whose weights or momentum are not numbers (a ReLU hid them from the loss, so the run
// trained on and saved them again). Each run is the small stripes project.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

// The stripes project with `change` applied to its JSON.
template <typename Change>
std::filesystem::path changed_project(const TempDir& dir, Change change) {
    return changed_stripes_project(dir.path(), 32, change);
}

// How many values of each float array in `file` are not finite, as h5py (an independent reader)
// finds them: "name count" lines.
std::string non_finite_counts(const std::filesystem::path& file) {
    const ProcessResult counted = run_command(
        "/usr/bin/python3 -c \"import h5py, numpy, sys; f = h5py.File(sys.argv[1], 'r'); "
        "f.visititems(lambda name, item: print(name, int((~numpy.isfinite(item[()])).sum())) if "
        "isinstance(item, h5py.Dataset) and item.dtype.kind == 'f' else None)\" " +
        quote(file));
    INFO(counted.output);
    REQUIRE(counted.exit_code == 0);
    return counted.output;
}

// Sets one value of the dataset `path` in `file` to NaN, with h5py.
void put_nan(const std::filesystem::path& file, const std::string& path, const std::string& index) {
    const ProcessResult put = run_command(
        "/usr/bin/python3 -c \"import h5py, numpy, sys; f = h5py.File(sys.argv[1], "
        "'r+'); d = f[sys.argv[2]]; a = d[()]; a[" +
        index + "] = numpy.nan; d[...] = a\" " + quote(file) + " " + quote(path));
    INFO(put.output);
    REQUIRE(put.exit_code == 0);
}

}  // namespace

TEST_CASE("a loss that explodes but stays finite stops the run with advice and exit 1", "[cli][divergence]") {
    TempDir dir("cli-finite-explosion");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json&) {});
    // At rate 10 the loss reaches about 3e9 in the first epoch, 1e20 in the second and 2e27 in the
    // third, all finite: before, three epochs ended with exit 0 and "weights saved".
    const ProcessResult run = run_command(backprop("train " + quote(project) + " --lr 10 --epochs 3 --no-run-folder"));
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output,
               Catch::Contains("backprop train: error: the loss grew to ") &&
                   Catch::Contains(" an image, more than 1000 times the first epoch's ") &&
                   Catch::Contains(", at learning rate 10: the training diverged. Train again with a "
                                   "lower learning rate (try 1), and check that the inputs are normalised"));
    CHECK_THAT(run.output, !Catch::Contains("epoch 3/3"));
}

TEST_CASE("a checkpoint whose weights or momentum hold a NaN is refused, naming the file and the array",
          "[cli][divergence]") {
    TempDir dir("cli-nan-checkpoint");
    const std::filesystem::path project = changed_project(dir, [](nlohmann::json& p) { p["training"]["epochs"] = 2; });
    const std::filesystem::path checkpoint = dir.path() / "c.h5";
    const ProcessResult trained =
        run_command(backprop("train " + quote(project) + " --checkpoint " + quote(checkpoint) + " --no-run-folder"));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    // One NaN feeds one ReLU unit of fc1, whose output it turns into 0: every loss stays finite.
    // Before, both resumed for two more epochs, exited 0 and saved the NaN again.
    // The weights are refused by the run before it starts; the optimiser's state by the checkpoint
    // reader, which names the first value at fault.
    for (const auto& [dataset, index, problem] :
         {std::tuple{"fc1/fc1/kernel:0", "5, 3",
                     ": holds NaN or infinite values (1 value of 'fc1.weight'): a run cannot "
                     "start from them"},
          std::tuple{
              "backprop_checkpoint/fc1.weight.state0", "3, 5",
              ": has a damaged training state: the optimiser's array 'fc1.weight.state0' holds nan at index "}}) {
        const std::filesystem::path damaged = dir.path() / "damaged.h5";
        std::filesystem::copy_file(checkpoint, damaged, std::filesystem::copy_options::overwrite_existing);
        put_nan(damaged, dataset, index);
        const std::string before = file_bytes(damaged);
        const ProcessResult resumed = run_command(backprop("resume " + quote(damaged) + " --epochs 4"));
        INFO(resumed.output);
        CHECK(resumed.exit_code == 1);
        CHECK_THAT(resumed.output, Catch::Contains("backprop resume: error: " + damaged.string() + problem));
        CHECK(file_bytes(damaged) == before);
    }
    // The checkpoint written by the healthy run holds no such value.
    CHECK_THAT(non_finite_counts(checkpoint), !Catch::Contains(" 1\n") && Catch::Contains("fc1/fc1/kernel:0 0\n"));
}
