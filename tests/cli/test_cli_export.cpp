// backprop export: the PyTorch script re-creates the network and, run with Debian's torch on the
// same images, gives `backprop predict --json`'s probabilities within 1e-4. The network here uses
// every kind of layer the scripts translate (strided 'same' convolution, BatchNormalization on a
// feature map and on flat features, LeakyReLU, Add, Concatenate, both poolings, global average
// pooling, tanh, sigmoid, Dropout), trained for a moment on a small image folder.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/probabilities.h"
#include "tests/cli/trained_export_fixture.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

TEST_CASE("the exported PyTorch script predicts what backprop predicts, within 1e-4, for every kind of layer",
          "[cli][export]") {
    Trained run;
    // The script goes into another folder: it finds the weights relative to itself.
    std::filesystem::create_directories(run.dir.path() / "scripts");
    const std::filesystem::path script = run.dir.path() / "scripts" / "model.py";
    std::string command = "export ";
    command += quote(run.weights);
    command += " --pytorch ";
    command += quote(script);
    const ProcessResult exported = run_command_stdout(backprop(command));
    REQUIRE(exported.exit_code == 0);
    CHECK(exported.output == "wrote " + script.string() + "\n");

    std::string predict = "predict ";
    predict += quote(run.weights);
    predict += " --json";
    predict += run.files;
    const ProcessResult ours = run_command_stdout(backprop(predict));
    REQUIRE(ours.exit_code == 0);
    std::string python = "/usr/bin/python3 ";
    python += quote(script);
    python += " --json";
    python += run.files;
    const ProcessResult theirs = run_command_stdout(python);
    INFO(theirs.output.substr(0, 3000));
    REQUIRE(theirs.exit_code == 0);

    const auto expected = probabilities_of(ours.output), actual = probabilities_of(theirs.output);
    REQUIRE(expected.size() == run.images.size());
    REQUIRE(actual.size() == expected.size());
    const double largest = largest_difference(expected, actual);
    double spread = 0;
    for (const auto& [file, row] : expected)
        for (const double p : row) spread = std::max(spread, std::abs(p - 1.0 / 3.0));
    CHECK(largest <= 1e-4);
    CHECK(spread > 0.05);  // the network has learnt something: the comparison is not of uniform guesses

    // Without --json: the same lines as backprop predict prints.
    const ProcessResult plain = run_command_stdout("/usr/bin/python3 " + quote(script) + " " + quote(run.images[0]));
    const ProcessResult plain_ours =
        run_command_stdout(backprop("predict " + quote(run.weights) + " " + quote(run.images[0])));
    CHECK(plain.output == plain_ours.output);
}

TEST_CASE("the exported Keras script is valid Python that builds every layer under its name and loads the weights",
          "[cli][export]") {
    Trained run;
    const std::filesystem::path script = run.dir.path() / "keras_model.py";
    REQUIRE(run_command(backprop("export " + quote(run.weights) + " --keras " + quote(script))).exit_code == 0);
    REQUIRE(run_command("/usr/bin/python3 -m py_compile " + quote(script)).exit_code == 0);
    std::ifstream in(script);
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    for (const std::string layer :
         {"layers.Conv2D(4, (3, 3), strides=(2, 2), padding=\"same\", name=\"conv1\")",
          "layers.BatchNormalization(momentum=0.99, epsilon=0.001, name=\"bn1\")",
          "layers.LeakyReLU(0.1, name=\"leaky\")", "name=\"conv-2\"", "layers.Add(name=\"sum\")",
          "layers.AveragePooling2D((2, 2), strides=(1, 1), name=\"avg\")",
          "layers.MaxPooling2D((2, 2), strides=(2, 2), name=\"max\")", "layers.GlobalAveragePooling2D(name=\"gap\")",
          "layers.Concatenate(name=\"joined\")", "layers.Activation(\"tanh\", name=\"tanh\")",
          "layers.Dropout(0.25, name=\"drop\")", "layers.Dense(8, name=\"fc1\")", "layers.Dense(3, name=\"out\")",
          "model.load_weights(str(WEIGHTS), by_name=True)",
          "WEIGHTS = Path(__file__).resolve().parent / \"weights.h5\"",
          "CLASS_NAMES = [\"blue\", \"green\", \"red\"]"}) {
        INFO(layer);
        CHECK(text.find(layer) != std::string::npos);
    }
}

TEST_CASE("export says what it needs and which file is at fault", "[cli][export]") {
    TempDir dir("cli-export-errors");
    const ProcessResult nothing = run_command(backprop("export"));
    CHECK(nothing.exit_code == 2);
    CHECK_THAT(nothing.output, Catch::StartsWith("backprop export: which weights file?"));
    const ProcessResult no_format = run_command(backprop("export w.h5"));
    CHECK(no_format.exit_code == 2);
    CHECK_THAT(no_format.output,
               Catch::StartsWith(
                   "backprop export: say what to write: --pytorch FILE.py, --keras FILE.py, --onnx FILE.onnx, or a "
                   "training script: --pytorch-train FILE.py, --keras-train FILE.py"));
    const std::filesystem::path missing = dir.path() / "missing.h5";
    const ProcessResult absent = run_command(backprop("export " + quote(missing) + " --pytorch x.py"));
    CHECK(absent.exit_code == 1);
    CHECK(absent.output == "backprop export: error: " + missing.string() + ": the file does not exist\n");
}
