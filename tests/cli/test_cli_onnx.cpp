// backprop export --onnx: the model passes ONNX's own checker with full checks and strict shape
// inference, names a node after every project layer, and an independent numpy evaluator of its
// operators (tests/python/onnx_numpy_eval.py: numpy, and onnx only to parse the file) gives
// `backprop predict --json`'s probabilities within 1e-4 for the network with every kind of layer.
// A destination that is the weights file or cannot be written is refused before anything is
// written, and a weights file without a project says so.
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>
#include <iterator>

#include "tests/cli/cli.h"
#include "tests/cli/probabilities.h"
#include "tests/cli/trained_export_fixture.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

std::string python_script(const std::string& name) {
    return quote(std::filesystem::path(TESTS_SOURCE_DIR) / "python" / name);
}

ProcessResult export_onnx(const std::filesystem::path& weights, const std::filesystem::path& model) {
    return run_command(backprop("export " + quote(weights) + " --onnx " + quote(model)));
}

}  // namespace

TEST_CASE("the exported ONNX model passes ONNX's checks and a numpy evaluator of it predicts what backprop predicts",
          "[cli][export][onnx]") {
    Trained run;
    std::filesystem::create_directories(run.dir.path() / "onnx");
    const std::filesystem::path model = run.dir.path() / "onnx" / "model.onnx";
    const ProcessResult exported =
        run_command_stdout(backprop("export " + quote(run.weights) + " --onnx " + quote(model)));
    REQUIRE(exported.exit_code == 0);
    CHECK(exported.output == "wrote " + model.string() + "\n");

    // Structure: ONNX's checker and strict shape inference, every layer a node, opset and metadata.
    std::string check = python + " " + python_script("onnx_check.py") + " " + quote(model) + " 3";
    for (const char* layer : {"input", "conv1", "bn1", "leaky", "conv-2", "sum", "avg", "max", "gap", "flat_avg",
                              "flat_max", "flat_gap", "joined", "bn2", "tanh", "drop", "fc1", "sigmoid", "out"}) {
        check += ' ';
        check += quote(layer);
    }
    const ProcessResult checked = run_command(check);
    INFO(checked.output);
    REQUIRE(checked.exit_code == 0);
    CHECK_THAT(checked.output,
               Catch::StartsWith("ok: opset 13, ") &&
                   Catch::Contains("input image ['batch', 3, 10, 10], output probabilities ['batch', 3]"));

    // Numbers: the independent evaluator against backprop predict on the same images.
    const ProcessResult ours = run_command_stdout(backprop("predict " + quote(run.weights) + " --json" + run.files));
    REQUIRE(ours.exit_code == 0);
    const ProcessResult theirs =
        run_command_stdout(python + " " + python_script("onnx_numpy_eval.py") + " " + quote(model) + run.files);
    INFO(theirs.output.substr(0, 3000));
    REQUIRE(theirs.exit_code == 0);
    const auto expected = probabilities_of(ours.output), actual = probabilities_of(theirs.output);
    REQUIRE(expected.size() == run.images.size());
    const double largest = largest_difference(expected, actual);
    double spread = 0;
    for (const auto& [file, row] : expected)
        for (const double p : row) spread = std::max(spread, std::abs(p - 1.0 / 3.0));
    std::cout << "ONNX numpy evaluator against backprop predict: largest |difference| " << largest << " over "
              << expected.size() << " images\n";
    CHECK(largest <= 1e-4);
    CHECK(spread > 0.05);  // the network has learnt something: the comparison is not of uniform guesses
}

TEST_CASE(
    "an ONNX export over its weights file, into a folder that cannot be written, or of a file without a "
    "project is refused and writes nothing",
    "[cli][export][onnx]") {
    Trained run;
    const std::string before = read_text(run.weights);

    const ProcessResult over = export_onnx(run.weights, run.weights);
    CHECK(over.exit_code == 2);
    CHECK_THAT(over.output, Catch::StartsWith("backprop export: --onnx " + run.weights.string() +
                                              " is the weights file that this command reads; write the model "
                                              "under another name\n"));
    CHECK(read_text(run.weights) == before);

    // Both outputs named: the script is not written either when the model cannot be.
    const std::filesystem::path script = run.dir.path() / "model.py";
#ifndef _WIN32
    const ProcessResult folder = run_command(
        backprop("export " + quote(run.weights) + " --pytorch " + quote(script) + " --onnx /proc/model.onnx"));
    CHECK(folder.exit_code == 1);
    // Even root cannot create files in /proc.
    CHECK_THAT(folder.output, Catch::StartsWith("backprop export: error: /proc/model.onnx: the folder '/proc' "
                                                "cannot be written to ("));
    CHECK_FALSE(std::filesystem::exists(script));
#endif

    const std::filesystem::path keras = run.dir.path() / "keras.h5";
    const ProcessResult rewritten = run_command(python + " " + python_script("rewrite_as_keras.py") + " " +
                                                quote(run.weights) + " " + quote(keras));
    INFO(rewritten.output);
    REQUIRE(rewritten.exit_code == 0);
    const std::filesystem::path model = run.dir.path() / "model.onnx";
    const ProcessResult no_project = export_onnx(keras, model);
    CHECK(no_project.exit_code == 1);
    CHECK(no_project.output == "backprop export: error: " + keras.string() +
                                   ": holds no project (it was written by another program); open a project with the "
                                   "same network and load these weights into it\n");
    CHECK_FALSE(std::filesystem::exists(model));
}
