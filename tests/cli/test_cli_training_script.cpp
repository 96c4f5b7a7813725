// backprop export --pytorch-train / --keras-train: a project as a script that trains it with the
// frameworks' own engines. The PyTorch script is run with Debian's torch 1.13 on the CPU, alone and
// as two processes under torchrun (gloo), and the weights it saves are read back by
// `backprop evaluate`: the proof that the file is the studio's. TensorFlow is not installed, so the
// Keras script is compiled and checked for its lines, as the predicting Keras script is.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "datasets/feeding.h"
#include "tests/cli/cli.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/quote.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

// The figure after "test accuracy " in a command's output (train, evaluate and the script print it).
double test_accuracy(const std::string& output) {
    std::smatch match;
    REQUIRE(std::regex_search(output, match, std::regex("test accuracy ([0-9.]+)")));
    return std::stod(match[1].str());
}

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

std::filesystem::path export_training_script(const std::filesystem::path& dir, const std::string& project) {
    const std::filesystem::path script = dir / "train.py";
    const ProcessResult exported =
        run_command_stdout(backprop("export " + project + " --pytorch-train " + quote(script)));
    INFO(exported.output);
    REQUIRE(exported.exit_code == 0);
    CHECK(exported.output == "wrote " + script.string() + "\n");
    return script;
}

}  // namespace

TEST_CASE("the PyTorch training script of the mlp trains an epoch of Fashion-MNIST as well as backprop train",
          "[cli][export][training-script]") {
    TempDir dir("cli-train-script");
    const std::filesystem::path script = export_training_script(dir.path(), "mlp");
    const std::filesystem::path weights = dir.path() / "trained by torch.h5";
    // One thread: the CI machine's cores are shared, and torch's threads then wait on each other.
    const ProcessResult trained =
        run_command("OMP_NUM_THREADS=1 /usr/bin/python3 " + quote(script) + " --out " + quote(weights), 300);
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK(trained.output.find("1 process on cpu, batch size 64 per process, 64 in all (global)") != std::string::npos);
    CHECK(trained.output.find("epoch 1/1: loss ") != std::string::npos);

    // The script's file, read by the studio's own reader: the accuracy is the weights', not the log's.
    const ProcessResult evaluated = run_command_stdout(backprop("evaluate " + quote(weights)));
    INFO(evaluated.output);
    REQUIRE(evaluated.exit_code == 0);
    const double torch_accuracy = test_accuracy(evaluated.output);
    CHECK(std::abs(torch_accuracy - test_accuracy(trained.output)) < 1e-3);

    const ProcessResult ours = run_command_stdout(backprop("train mlp --epochs 1 --no-run-folder"));
    INFO(ours.output);
    REQUIRE(ours.exit_code == 0);
    const double engine_accuracy = test_accuracy(ours.output);
    WARN("test accuracy after one epoch: PyTorch " << torch_accuracy << ", backprop train " << engine_accuracy);
    CHECK(std::abs(torch_accuracy - engine_accuracy) <= 0.015);
    CHECK(torch_accuracy > 0.8);
}

TEST_CASE("under torchrun two processes train the cnn together and rank 0 alone saves weights the studio reads",
          "[cli][export][training-script]") {
    TempDir dir("cli-torchrun");
    const std::filesystem::path script = export_training_script(dir.path(), "cnn");
    const std::filesystem::path out = dir.path() / "out";
    std::filesystem::create_directories(out);
    const std::filesystem::path weights = out / "cnn.h5";
    REQUIRE(std::filesystem::exists("/usr/bin/torchrun"));
    // Debian's torch 1.13 on Python 3.11 cannot parse torchrun's default --redirects/--tee of 0 (an
    // enum change of Python 3.11; torch 2 has it fixed), so the test names stderr (2) for both.
    // 250 steps of 64 images (32 a process) reach about 0.84.
    const ProcessResult trained = run_command(
        "OMP_NUM_THREADS=1 /usr/bin/python3 -m torch.distributed.run --nproc_per_node=2 --redirects 2 --tee 2 "
        "--log_dir " +
            quote(dir.path() / "logs") + " " + quote(script) + " --max-steps 250 --out " + quote(weights),
        300);
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK(trained.output.find("2 processes on cpu, batch size 32 per process, 64 in all (global)") !=
          std::string::npos);
    // Rank 0 alone logs and saves: one epoch line, one file, no temporary left behind.
    CHECK(count_of(trained.output, "epoch 1/1: loss ") == 1);
    CHECK(count_of(trained.output, "wrote ") == 1);
    std::vector<std::filesystem::path> written;
    for (const auto& entry : std::filesystem::directory_iterator(out)) written.push_back(entry.path());
    CHECK(written == std::vector<std::filesystem::path>{weights});

    const ProcessResult evaluated = run_command_stdout(backprop("evaluate " + quote(weights)));
    INFO(evaluated.output);
    REQUIRE(evaluated.exit_code == 0);
    WARN("test accuracy after 250 steps on two processes: " << test_accuracy(evaluated.output));
    CHECK(test_accuracy(evaluated.output) >= 0.80);
}

TEST_CASE("the training script holds out the very images the studio holds out for validation",
          "[cli][export][training-script]") {
    TempDir dir("cli-train-split");
    const std::filesystem::path script = export_training_script(dir.path(), "mlp");
    struct Case {
        std::size_t count;
        double fraction;
        std::uint64_t seed;
    };
    for (const Case& c : {Case{50, 0.3, 7}, Case{1000, 0.1, 42}, Case{7, 0.5, 18446744073709551615ull}}) {
        const std::string python =
            "import json, sys; sys.path.insert(0, sys.argv[1]); import train; "
            "print(json.dumps(train.split_train_validation(" +
            std::to_string(c.count) + ", " + std::to_string(c.fraction) + ", " + std::to_string(c.seed) + ")))";
        const ProcessResult split =
            run_command_stdout("/usr/bin/python3 -c " + quote(python) + " " + quote(dir.path()), 120);
        INFO(split.output);
        REQUIRE(split.exit_code == 0);
        const nlohmann::json theirs = nlohmann::json::parse(split.output);
        const bps::datasets::SplitIndices ours = bps::datasets::split_train_validation(c.count, c.fraction, c.seed);
        CHECK(theirs.at(0).get<std::vector<std::size_t>>() == ours.train);
        CHECK(theirs.at(1).get<std::vector<std::size_t>>() == ours.validation);
    }
}

TEST_CASE("export refuses a training script over its input or in a folder it cannot write, before writing any",
          "[cli][export][training-script]") {
    TempDir dir("cli-train-refusals");
    const std::filesystem::path project = dir.path() / "mlp.json";
    std::filesystem::copy_file(std::filesystem::path(TESTS_SOURCE_DIR) / ".." / "tutorials" / "projects" / "mlp.json",
                               project);
    const std::string project_text = read_text(project);

    const ProcessResult over_project =
        run_command(backprop("export " + quote(project) + " --pytorch-train " + quote(project)));
    CHECK(over_project.exit_code == 2);
    CHECK_THAT(over_project.output, Catch::StartsWith("backprop export: --pytorch-train " + project.string() +
                                                      " is the project file that this command reads; write the "
                                                      "script under another name"));
    CHECK(read_text(project) == project_text);

    const std::filesystem::path weights = dir.path() / "w.h5";
    const ProcessResult over_weights =
        run_command(backprop("export " + quote(weights) + " --keras-train " + quote(weights)));
    CHECK(over_weights.exit_code == 2);
    CHECK_THAT(over_weights.output, Catch::StartsWith("backprop export: --keras-train " + weights.string() +
                                                      " is the weights file that this command reads; write the "
                                                      "script under another name"));

    // The PyTorch script's folder is missing: the Keras script, whose folder is fine, is not written either.
    const std::filesystem::path missing = dir.path() / "missing";
    const std::filesystem::path keras = dir.path() / "train_keras.py";
    const ProcessResult unwritable =
        run_command(backprop("export " + quote(project) + " --keras-train " + quote(keras) + " --pytorch-train " +
                             quote(missing / "train.py")));
    CHECK(unwritable.exit_code == 1);
    CHECK(unwritable.output == "backprop export: error: " + (missing / "train.py").string() + ": the folder '" +
                                   missing.string() + "' does not exist\n");
    CHECK_FALSE(std::filesystem::exists(keras));

    const ProcessResult predicting =
        run_command(backprop("export " + quote(project) + " --pytorch " + quote(dir.path() / "model.py")));
    CHECK(predicting.exit_code == 2);
    CHECK_THAT(predicting.output,
               Catch::StartsWith("backprop export: --pytorch writes a script that predicts with trained weights, and " +
                                 project.string() +
                                 " has none: give the .h5 file that training saved, or write a "
                                 "training script with --pytorch-train or --keras-train"));
    CHECK_FALSE(std::filesystem::exists(dir.path() / "model.py"));
}

TEST_CASE("the training script never saves over the weights it starts from, and a failed run keeps an earlier save",
          "[cli][export][training-script]") {
    TempDir dir("cli-train-keeps");
    const std::filesystem::path start = dir.path() / "start.h5";
    REQUIRE(
        run_command(backprop("train mlp --batches 2 --no-run-folder --save-weights " + quote(start)), 300).exit_code ==
        0);
    const std::string start_bytes = read_text(start);
    const std::filesystem::path script = dir.path() / "train.py";
    REQUIRE(run_command(backprop("export " + quote(start) + " --pytorch-train " + quote(script))).exit_code == 0);

    const ProcessResult over_start =
        run_command("OMP_NUM_THREADS=1 /usr/bin/python3 " + quote(script) + " --out " + quote(start), 120);
    INFO(over_start.output);
    CHECK(over_start.exit_code != 0);
    CHECK(over_start.output.find(start.string() + ": the weights to start from would be overwritten") !=
          std::string::npos);
    CHECK(read_text(start) == start_bytes);

    // An earlier good save, then a run that fails (its data folder is missing): the save stays whole.
    const std::filesystem::path earlier = dir.path() / "earlier.h5";
    std::filesystem::copy_file(start, earlier);
    const ProcessResult failed = run_command("OMP_NUM_THREADS=1 /usr/bin/python3 " + quote(script) + " --out " +
                                                 quote(earlier) + " --data " + quote(dir.path() / "no-data"),
                                             120);
    INFO(failed.output);
    CHECK(failed.exit_code != 0);
    CHECK(read_text(earlier) == start_bytes);
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files.push_back(entry.path().filename());
    std::sort(files.begin(), files.end());
    CHECK(files == std::vector<std::filesystem::path>{"earlier.h5", "start.h5", "train.py"});
}

TEST_CASE("the Keras training script is valid Python that builds the project under MirroredStrategy",
          "[cli][export][training-script]") {
    TempDir dir("cli-keras-train");
    const std::filesystem::path script = dir.path() / "train_keras.py";
    REQUIRE(run_command(backprop("export cnn --keras-train " + quote(script))).exit_code == 0);
    REQUIRE(run_command("/usr/bin/python3 -m py_compile " + quote(script)).exit_code == 0);
    const std::string text = read_text(script);
    for (const std::string line :
         {"    input = keras.Input(shape=(HEIGHT, WIDTH, CHANNELS), name=\"input\")\n",
          "    conv1 = layers.Conv2D(32, (3, 3), strides=(1, 1), padding=\"valid\", kernel_initializer=\"he_uniform\", "
          "name=\"conv1\")(input)\n",
          "    pool1 = layers.MaxPooling2D((2, 2), strides=(2, 2), name=\"pool1\")(relu1)\n",
          "    flatten = layers.Flatten(name=\"flatten\")(pool2)\n",
          "    fc2 = layers.Dense(10, kernel_initializer=\"glorot_uniform\", name=\"fc2\")(relu3)\n",
          "    strategy = tf.distribute.MirroredStrategy()\n", "    with strategy.scope():\n",
          "        model = build_network()\n", "    model.fit(training, epochs=arguments.epochs",
          "loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)", "DATASET = \"fashion-mnist\"\n",
          "EPOCHS = 1\n", "BATCH_SIZE = 64", "OPTIMIZER = \"sgd\"\n", "def split_train_validation(",
          "def save_weights_file("}) {
        INFO(line);
        CHECK(text.find(line) != std::string::npos);
    }
}
