// backprop summary, train, evaluate and predict as a learner runs them, on a small image-folder
// project the test writes (two classes of 8x8 stripes), so each run takes a second or two.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

TEST_CASE("summary prints every layer of a shipped example with the totals", "[cli][train]") {
    const ProcessResult result = run_command(backprop("summary cnn"));
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Contains("Project 'cnn' on Fashion-MNIST (1x28x28, 10 classes)"));
    // Output shape, parameters, FLOPs and activation memory of conv1: 32x26x26 outputs of 9 taps
    // each, 32*9+32 parameters, (2*9+1)*21632 FLOPs, 21632 floats.
    CHECK(std::regex_search(result.output,
                            std::regex(R"(conv1 \(Conv2D\) +\(32, 26, 26\) +320 +411\.01 KFLOPs +84\.5 KiB)")));
    CHECK(std::regex_search(result.output, std::regex(R"(fc1 \(Dense\) +\(128\) +204,928 )")));
    CHECK_THAT(result.output, Catch::Contains("Total parameters: 225,034 (879 KiB)"));
    CHECK_THAT(result.output, Catch::Contains("Forward pass per image: 5.35 MFLOPs"));
}

TEST_CASE("summary of an impossible network names the file and the layer", "[cli][train]") {
    TempDir dir("cli-summary-invalid");
    write_stripes(dir.path() / "images", 2);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images", 5);
    const ProcessResult result = run_command(backprop("summary \"" + project.string() + "\""));
    CHECK(result.exit_code == 1);
    CHECK(result.output == "backprop summary: error: " + project.string() +
                               ": the output 'out' has 5 units but the dataset has 2 classes\n");
    const ProcessResult missing = run_command(backprop("summary no-such-project.json"));
    CHECK(missing.exit_code == 1);
    CHECK(missing.output ==
          "backprop summary: error: no-such-project.json: the file does not exist; the examples "
          "that ship with Backprop Studio are mlp, cnn and cifar\n");
}

TEST_CASE("train, then evaluate and predict with the saved weights", "[cli][train]") {
    TempDir dir("cli-train");
    write_stripes(dir.path() / "images", 32);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path weights = dir.path() / "stripes.h5";

    const ProcessResult trained =
        run_command(backprop("train \"" + project.string() + "\" --save-weights \"" + weights.string() + "\""));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("training 'stripes' on " + (dir.path() / "images").string() +
                                               ": 48 training, 16 validation, 0 test images"));
    CHECK_THAT(trained.output, Catch::Contains("8 epochs, batch 8, SGD, learning rate 0.05, momentum 0.9, seed 3"));
    // The reading is announced once, however many images it counts.
    const std::string reading = "reading " + (dir.path() / "images").string() + "...\n";
    const std::size_t first = trained.output.find(reading);
    CHECK(first != std::string::npos);
    CHECK(trained.output.find(reading, first + 1) == std::string::npos);
    // One line per epoch with the validation figures; no test split in an image folder.
    const std::regex epoch_line(
        R"(epoch (\d)/8: loss [0-9.]+, accuracy [0-9.]+ \| validation loss [0-9.]+, accuracy ([0-9.]+) \|)");
    std::vector<double> validation;
    for (auto it = std::sregex_iterator(trained.output.begin(), trained.output.end(), epoch_line);
         it != std::sregex_iterator(); ++it)
        validation.push_back(std::stod((*it)[2]));
    REQUIRE(validation.size() == 8);
    CHECK(validation.back() >= 0.9);
    CHECK_THAT(trained.output, !Catch::Contains("test accuracy"));
    CHECK_THAT(trained.output, Catch::Contains("weights saved to " + weights.string()));
    REQUIRE(std::filesystem::exists(weights));

    const ProcessResult evaluated =
        run_command(backprop("evaluate \"" + project.string() + "\" --weights \"" + weights.string() + "\""));
    INFO(evaluated.output);
    REQUIRE(evaluated.exit_code == 0);
    std::smatch found;
    REQUIRE(std::regex_search(evaluated.output, found,
                              std::regex(R"(accuracy ([0-9.]+), loss [0-9.]+ \(64 images of the folder\))")));
    CHECK(std::stod(found[1]) >= 0.9);

    // Two new images the network has not seen, and one that is not an image.
    std::vector<std::uint8_t> rows(64), columns(64);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            rows[static_cast<std::size_t>(y * 8 + x)] = y % 2 ? 220 : 10;
            columns[static_cast<std::size_t>(y * 8 + x)] = x % 2 ? 220 : 10;
        }
    write_test_png(dir.path() / "new_rows.png", 8, 8, 1, rows);
    write_test_png(dir.path() / "new_columns.png", 8, 8, 1, columns);
    std::ofstream(dir.path() / "notes.png") << "not an image";
    const ProcessResult predicted =
        run_command(backprop("predict \"" + project.string() + "\" --weights \"" + weights.string() + "\" \"" +
                             (dir.path() / "new_rows.png").string() + "\" \"" + (dir.path() / "notes.png").string() +
                             "\" \"" + (dir.path() / "new_columns.png").string() + "\""));
    INFO(predicted.output);
    CHECK(predicted.exit_code == 1);  // one image could not be read
    CHECK_THAT(predicted.output, Catch::Contains("backprop predict: error: " + (dir.path() / "notes.png").string()));
    std::smatch line;
    REQUIRE(std::regex_search(predicted.output, line,
                              std::regex(R"(new_rows\.png: (rows|columns) ([0-9.]+), (rows|columns) ([0-9.]+)\n)")));
    CHECK(line[1] == "rows");
    CHECK(std::stod(line[2]) >= std::stod(line[4]));
    CHECK(std::stod(line[2]) + std::stod(line[4]) == Approx(1.0).margin(0.002));
    REQUIRE(std::regex_search(predicted.output, line, std::regex(R"(new_columns\.png: (rows|columns) )")));
    CHECK(line[1] == "columns");
}

TEST_CASE("the same project and seed train the same run twice", "[cli][train]") {
    TempDir dir("cli-train-replay");
    write_stripes(dir.path() / "images", 16);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::string command = backprop("train \"" + project.string() + "\" --epochs 3");
    const ProcessResult first = run_command_stdout(command);
    const ProcessResult second = run_command_stdout(command);
    const ProcessResult other = run_command_stdout(command + " --seed 4");
    REQUIRE(first.exit_code == 0);
    // Equal up to the timings: drop everything after the last '|' of each epoch line.
    auto figures = [](const std::string& output) {
        std::string kept;
        const std::regex line(R"((epoch \d/3: [^|]+\|[^|]+)\|)");
        for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
            kept += (*it)[1].str() + "\n";
        return kept;
    };
    REQUIRE(!figures(first.output).empty());
    CHECK(figures(first.output) == figures(second.output));
    CHECK(figures(first.output) != figures(other.output));
}

TEST_CASE("train refuses bad options and destinations before training", "[cli][train]") {
    TempDir dir("cli-train-refused");
    write_stripes(dir.path() / "images", 2);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::string quoted = "\"" + project.string() + "\"";

    const ProcessResult rate = run_command(backprop("train " + quoted + " --lr 0"));
    CHECK(rate.exit_code == 2);
    CHECK_THAT(rate.output, Catch::StartsWith("backprop train: --lr needs a number above 0, not '0'"));

    const std::filesystem::path nowhere = dir.path() / "missing" / "w.h5";
    const ProcessResult destination =
        run_command(backprop("train " + quoted + " --save-weights \"" + nowhere.string() + "\""));
    CHECK(destination.exit_code == 1);
    CHECK(destination.output == "backprop train: error: " + nowhere.string() + ": the folder '" +
                                    (dir.path() / "missing").string() + "' does not exist\n");

    const ProcessResult no_project = run_command(backprop("train"));
    CHECK(no_project.exit_code == 2);
    CHECK_THAT(no_project.output, Catch::StartsWith("backprop train: which project?"));
}

TEST_CASE("a dataset that is not here is reported with how to get it", "[cli][train]") {
    TempDir data("cli-train-no-data");
    ScopedEnvironment data_dir("BACKPROP_DATA_DIR", data.path().string());
    TempDir dir("cli-train-mnist");
    std::string text =
        "{\"format\": \"backprop-studio-project\", \"version\": 1, \"network\": {\"nodes\": ["
        "{\"name\": \"input\", \"type\": \"Input\"}, {\"name\": \"flatten\", \"type\": \"Flatten\"},"
        "{\"name\": \"out\", \"type\": \"Dense\", \"params\": {\"units\": 10}}], \"edges\": ["
        "{\"from\": \"input\", \"to\": \"flatten\"}, {\"from\": \"flatten\", \"to\": \"out\"}]},"
        "\"dataset\": {\"name\": \"mnist\"}}";
    std::ofstream(dir.path() / "mnist.json") << text;
    const ProcessResult result = run_command(backprop("train \"" + (dir.path() / "mnist.json").string() + "\""));
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("backprop train: error: " + (data.path() / "mnist").string()));
    CHECK_THAT(result.output, Catch::Contains("backprop datasets download mnist"));
}

TEST_CASE("weights from another network are refused by evaluate", "[cli][train]") {
    TempDir dir("cli-evaluate-mismatch");
    write_stripes(dir.path() / "images", 8);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path weights = dir.path() / "w.h5";
    REQUIRE(run_command(
                backprop("train \"" + project.string() + "\" --epochs 1 --save-weights \"" + weights.string() + "\""))
                .exit_code == 0);
    // The same data with a wider hidden layer.
    std::string text;
    {
        std::ifstream in(project);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text.replace(text.find("\"units\": 16"), 11, "\"units\": 32");
    const std::filesystem::path wider = dir.path() / "wider.json";
    std::ofstream(wider) << text;
    const ProcessResult result =
        run_command(backprop("evaluate \"" + wider.string() + "\" --weights \"" + weights.string() + "\""));
    CHECK(result.exit_code == 1);
    CHECK(result.output == "backprop evaluate: error: " + weights.string() +
                               ": layer 'fc1': kernel is 64x16 in the file but the network needs 64x32\n");
    const ProcessResult no_weights = run_command(backprop("evaluate \"" + wider.string() + "\""));
    CHECK(no_weights.exit_code == 2);
    CHECK_THAT(no_weights.output, Catch::StartsWith("backprop evaluate: --weights FILE is needed"));
}

#ifndef _WIN32
namespace {
// SIGINT (Ctrl-C), SIGTERM (a shutdown, kill) and SIGHUP (the terminal closed) all stop a run the
// same way: after the batch, with the weights saved, and exit status 130.
void check_signal_stops_cleanly(const std::string& signal) {
    TempDir dir("cli-train-interrupt");
    write_stripes(dir.path() / "images", 16);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path weights = dir.path() / "w.h5";
    // SIGINT once training has begun: the handshake is the first progress line of epoch 1, which
    // only a running training prints, into a run of many epochs. The wait for it is bounded (two
    // minutes of polling the log); past that the script says so and exits 99. The shell reports
    // the program's own exit status.
    const std::filesystem::path log = dir.path() / "train.log";
    const std::string script =
        backprop("train \"" + project.string() + "\" --epochs 100000 --save-weights \"" + weights.string() + "\"") +
        " > \"" + log.string() + "\" 2>&1 & pid=$!; began=no; for i in $(seq 1 2400); do grep -q '^epoch 1/' \"" +
        log.string() + "\" && began=yes && break; sleep 0.05; done; if [ $began = no ]; then kill -9 $pid; cat \"" +
        log.string() + "\"; echo 'training never began'; exit 99; fi; kill -" + signal +
        " $pid; wait $pid; status=$?; cat \"" + log.string() + "\"; exit $status";
    const ProcessResult result = run_command("sh -c '" + std::regex_replace(script, std::regex("'"), "'\\''") + "'");
    INFO(result.output);
    CHECK(result.exit_code == 130);
    CHECK_THAT(result.output, Catch::Contains("stopping after this batch..."));
    CHECK(std::regex_search(result.output, std::regex(R"(stopped after \d+ whole epochs?\n)")));
    CHECK_THAT(result.output, Catch::Contains("weights saved to " + weights.string()));
    const ProcessResult evaluated =
        run_command(backprop("evaluate \"" + project.string() + "\" --weights \"" + weights.string() + "\""));
    CHECK(evaluated.exit_code == 0);
}
}  // namespace

TEST_CASE("Ctrl-C stops training after the batch, still saves the weights and exits with 130", "[cli][train]") {
    check_signal_stops_cleanly("INT");
}

TEST_CASE("SIGTERM and SIGHUP stop training like Ctrl-C: after the batch, with the weights saved", "[cli][train]") {
    SECTION("SIGTERM") {
        check_signal_stops_cleanly("TERM");
    }
    SECTION("SIGHUP") {
        check_signal_stops_cleanly("HUP");
    }
}
#endif

TEST_CASE("train records its run beside the project, as the studio does, and --no-run-folder keeps none",
          "[cli][train]") {
    TempDir dir("cli-train-run-folder");
    write_stripes(dir.path() / "images", 16);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path runs = dir.path() / "stripes.runs";

    const ProcessResult kept = run_command(backprop("train " + quote(project) + " --no-run-folder"));
    INFO(kept.output);
    REQUIRE(kept.exit_code == 0);
    CHECK(!std::filesystem::exists(runs));

    // Weights under the learner's own name are kept there, and in the run's folder too.
    const std::filesystem::path own = dir.path() / "mine.h5";
    const ProcessResult trained = run_command(backprop("train " + quote(project) + " --save-weights " + quote(own)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    std::vector<std::filesystem::path> folders;
    for (const auto& entry : std::filesystem::directory_iterator(runs)) folders.push_back(entry.path());
    REQUIRE(folders.size() == 1);
    const std::filesystem::path run = folders.front();
    CHECK_THAT(trained.output, Catch::Contains("run recorded in " + run.string()));
    for (const char* file : {"receipt.json", "history.json", "weights.h5", "checkpoint.h5", "evaluation.json"})
        CHECK(std::filesystem::exists(run / file));
    // What the Inside view replays: the weights before training and after each of the 8 epochs.
    for (const char* file : {"epoch-000.h5", "epoch-001.h5", "epoch-008.h5"})
        CHECK(std::filesystem::exists(run / "replay" / file));
    CHECK_FALSE(std::filesystem::exists(run / "replay" / "epoch-009.h5"));
    CHECK(std::filesystem::exists(own));
    CHECK(std::filesystem::file_size(own) == std::filesystem::file_size(run / "weights.h5"));

    // A second run gets the next name; `runs` lists both, oldest first, as the studio's list would.
    REQUIRE(run_command(backprop("train " + quote(project) + " --epochs 2")).exit_code == 0);
    const ProcessResult listed = run_command_stdout(backprop("runs " + quote(project) + " --json"));
    INFO(listed.output);
    REQUIRE(listed.exit_code == 0);
    std::vector<nlohmann::json> lines;
    std::istringstream in(listed.output);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0]["name"] == "Run 1");
    CHECK(lines[0]["folder"] == run.string());
    CHECK(lines[0]["epochs_completed"] == 8);
    CHECK(lines[0]["weights"] == (run / "weights.h5").string());
    CHECK(lines[1]["name"] == "Run 2");
    CHECK(lines[1]["epochs_completed"] == 2);
    for (const nlohmann::json& line : lines) {
        CHECK(line["outcome"] == "finished");
        CHECK(line["evaluation"] == true);
        CHECK(line["validation"]["samples"] == 8);
    }
    const ProcessResult table = run_command_stdout(backprop("runs " + quote(project)));
    CHECK_THAT(table.output, Catch::Contains("2 runs of " + project.string()));
    CHECK_THAT(table.output, Catch::Contains("Run 2"));
    const ProcessResult example = run_command(backprop("runs cnn"));
    CHECK(example.exit_code == 2);
    CHECK_THAT(example.output, Catch::Contains("runs are kept beside a project file; 'cnn' is not one"));
}

TEST_CASE("a run that fails keeps its own record and leaves earlier runs and weights as they were", "[cli][train]") {
    TempDir dir("cli-train-run-failed");
    write_stripes(dir.path() / "images", 16);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path own = dir.path() / "mine.h5";
    REQUIRE(run_command(backprop("train " + quote(project) + " --save-weights " + quote(own))).exit_code == 0);
    const std::filesystem::path runs = dir.path() / "stripes.runs";
    const std::filesystem::path first = std::filesystem::directory_iterator(runs)->path();
    std::map<std::string, std::string> before;
    for (const auto& entry : std::filesystem::directory_iterator(first))
        before[entry.path().filename().string()] = file_bytes(entry.path());
    const std::string own_before = file_bytes(own);

    // The images are gone: the second run fails after its folder was made.
    std::filesystem::rename(dir.path() / "images", dir.path() / "moved");
    const ProcessResult failed = run_command(backprop("train " + quote(project) + " --save-weights " + quote(own)));
    INFO(failed.output);
    CHECK(failed.exit_code == 1);
    CHECK_THAT(failed.output, Catch::Contains((dir.path() / "images").string()));
    CHECK(file_bytes(own) == own_before);
    for (const auto& [name, text] : before) CHECK(file_bytes(first / name) == text);

    const ProcessResult listed = run_command_stdout(backprop("runs " + quote(project) + " --json"));
    REQUIRE(listed.exit_code == 0);
    std::vector<nlohmann::json> lines;
    std::istringstream in(listed.output);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0]["outcome"] == "finished");
    CHECK(lines[1]["name"] == "Run 2");
    CHECK(lines[1]["outcome"] == "failed");
    CHECK(lines[1]["weights"] == nullptr);
    CHECK(lines[1]["folder"] != lines[0]["folder"]);
}
