// backprop inspect as a teacher scripts it, on the small stripes project (trained in a second or
// two): every layer's figures and pictures, occlusion and saliency maps read back by an
// independent PNG reader (Pillow), and the refusals of bad input with the name at fault.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

// The stripes project trained once for the whole file: its weights, and an image of each class.
struct TrainedStripes {
    TempDir dir{"cli-inspect"};
    std::filesystem::path project, weights, rows, columns;

    TrainedStripes() {
        write_stripes(dir.path() / "images", 32);
        project = write_project(dir.path(), dir.path() / "images");
        weights = dir.path() / "stripes.h5";
        const ProcessResult trained =
            run_command(backprop("train " + quote(project) + " --save-weights " + quote(weights)));
        INFO(trained.output);
        REQUIRE(trained.exit_code == 0);
        std::vector<std::uint8_t> row_pixels(64), column_pixels(64);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x) {
                row_pixels[static_cast<std::size_t>(y * 8 + x)] = y % 2 ? 220 : 10;
                column_pixels[static_cast<std::size_t>(y * 8 + x)] = x % 2 ? 220 : 10;
            }
        rows = dir.path() / "new_rows.png";
        columns = dir.path() / "new_columns.png";
        write_test_png(rows, 8, 8, 1, row_pixels);
        write_test_png(columns, 8, 8, 1, column_pixels);
    }
};

TrainedStripes& stripes() {
    static TrainedStripes trained;
    return trained;
}

nlohmann::json inspect_json(const std::string& arguments) {
    const ProcessResult result = run_command_stdout(backprop("inspect " + arguments + " --json"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.output);
}

// Width, height and mode of a PNG as Pillow reads it: "259 259 RGB".
std::string png_facts(const std::filesystem::path& file) {
    const ProcessResult read = run_command_stdout(
        "/usr/bin/python3 -c \"import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.load(); "
        "print(i.size[0], i.size[1], i.mode)\" " +
        quote(file));
    INFO(read.output);
    REQUIRE(read.exit_code == 0);
    return read.output.substr(0, read.output.find('\n'));
}

}  // namespace

TEST_CASE("inspect gives every layer's figures and the prediction that predict gives", "[cli][inspect]") {
    TrainedStripes& trained = stripes();
    const nlohmann::json report = inspect_json(quote(trained.weights) + " " + quote(trained.rows));
    std::vector<std::string> names;
    for (const nlohmann::json& layer : report["layers"]) names.push_back(layer["name"]);
    CHECK(names == std::vector<std::string>{"input", "flatten", "fc1", "relu", "out"});
    CHECK(report["layers"][2]["shape"] == nlohmann::json::array({16, 1, 1}));
    CHECK(report["layers"][0]["shape"] == nlohmann::json::array({1, 8, 8}));
    CHECK(report["top"][0]["class"] == "rows");

    const ProcessResult predicted =
        run_command_stdout(backprop("predict " + quote(trained.weights) + " " + quote(trained.rows) + " --json"));
    REQUIRE(predicted.exit_code == 0);
    const nlohmann::json line = nlohmann::json::parse(predicted.output);
    REQUIRE(line["probabilities"].size() == 2);
    for (std::size_t c = 0; c < 2; ++c)
        CHECK(report["probabilities"][c].get<double>() == Approx(line["probabilities"][c].get<double>()).margin(1e-6));
}

TEST_CASE("a Dense layer's output is its own, and the ReLU after it zeroes exactly its negative values",
          "[cli][inspect]") {
    TrainedStripes& trained = stripes();
    const nlohmann::json dense = inspect_json(quote(trained.weights) + " " + quote(trained.columns) + " --layer fc1");
    const nlohmann::json relu = inspect_json(quote(trained.weights) + " " + quote(trained.columns) + " --layer relu");
    REQUIRE(dense["layers"].size() == 1);
    const std::vector<float> before = dense["layers"][0]["values"], after = relu["layers"][0]["values"];
    REQUIRE(before.size() == 16);
    REQUIRE(after.size() == 16);
    std::size_t negative = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        CHECK(after[i] == std::max(before[i], 0.0f));
        negative += before[i] <= 0.0f ? 1 : 0;
    }
    // Trained weights give this image units on both sides of zero.
    CHECK(negative > 0);
    CHECK(negative < 16);
    CHECK(relu["layers"][0]["zero_fraction"].get<double>() == Approx(static_cast<double>(negative) / 16.0));
    CHECK(dense["layers"][0]["min"].get<double>() < 0);
}

TEST_CASE("inspect draws every layer, the occlusion and the saliency as PNGs of the expected size", "[cli][inspect]") {
    TrainedStripes& trained = stripes();
    const std::filesystem::path out = trained.dir.path() / "pictures";
    const nlohmann::json report =
        inspect_json(quote(trained.weights) + " " + quote(trained.rows) + " --activations " + quote(out / "layers") +
                     " --occlusion " + quote(out / "occlusion.png") + " --saliency " + quote(out / "saliency.png") +
                     " --patch 4 --stride 2 --class columns");
    // One picture per layer, in execution order.
    const std::vector<std::string> pictures = {"00-input.png", "01-flatten.png", "02-fc1.png", "03-relu.png",
                                               "04-out.png"};
    for (std::size_t i = 0; i < pictures.size(); ++i) {
        CHECK(report["layers"][i]["picture"] == (out / "layers" / pictures[i]).string());
        CHECK(std::filesystem::exists(out / "layers" / pictures[i]));
    }
    // The input: one 8x8 tile drawn 64 pixels a side at least, so 8 pixels per value.
    CHECK(png_facts(out / "layers" / "00-input.png") == "64 64 RGB");
    // fc1: 16 units as a 4x4 grid of 1x1 tiles, each 64 pixels, with 1-pixel gaps.
    CHECK(png_facts(out / "layers" / "02-fc1.png") == "259 259 RGB");
    // The maps over the 8x8 image, drawn at least 256 pixels a side.
    CHECK(png_facts(out / "occlusion.png") == "256 256 RGB");
    CHECK(png_facts(out / "saliency.png") == "256 256 RGB");
    // A 4-pixel patch moved by 2 over 8x8: 3x3 positions, watching the class asked for.
    const nlohmann::json& occlusion = report["occlusion"];
    CHECK(occlusion["rows"] == 3);
    CHECK(occlusion["columns"] == 3);
    CHECK(occlusion["drops"].size() == 9);
    CHECK(occlusion["class"] == "columns");
    CHECK(occlusion["probability"].get<double>() == Approx(report["probabilities"][0].get<double>()));
    CHECK(report["saliency"]["class"] == "columns");
}

TEST_CASE("inspect scales an image of another size and says so", "[cli][inspect]") {
    TrainedStripes& trained = stripes();
    std::vector<std::uint8_t> pixels(16 * 12 * 3);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>((i * 37) % 251);
    const std::filesystem::path large = trained.dir.path() / "large.png";
    write_test_png(large, 16, 12, 3, pixels);
    const ProcessResult result = run_command(backprop("inspect " + quote(trained.weights) + " " + quote(large)));
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Contains("note: " + large.string() +
                                              ": scaled from 16x12 RGB to 8x8 grayscale, as the network's "
                                              "training images were"));
}

TEST_CASE("inspect refuses bad input with the name at fault and exit status 2", "[cli][inspect]") {
    TrainedStripes& trained = stripes();
    const std::string weights = quote(trained.weights), image = quote(trained.rows);
    SECTION("a layer the network lacks") {
        const ProcessResult result = run_command(backprop("inspect " + weights + " " + image + " --layer conv9"));
        CHECK(result.exit_code == 2);
        CHECK(result.output ==
              "backprop inspect: error: --layer: the network has no layer named 'conv9'; its layers "
              "are input, flatten, fc1, relu, out\n");
    }
    SECTION("weights of another network") {
        TempDir other("cli-inspect-other");
        const std::filesystem::path three_classes = write_project(other.path(), trained.dir.path() / "images", 3);
        const ProcessResult result =
            run_command(backprop("inspect " + quote(three_classes) + " --weights " + weights + " " + image));
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::Contains("backprop inspect: error: " + trained.weights.string() +
                                                  ": layer 'out': kernel is 16x2 in the file but the network needs "
                                                  "16x3"));
    }
    SECTION("an image that cannot be read") {
        const std::filesystem::path notes = trained.dir.path() / "notes.png";
        std::ofstream(notes) << "not an image";
        const ProcessResult result = run_command(backprop("inspect " + weights + " " + quote(notes)));
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::StartsWith("backprop inspect: error: " + notes.string() + ": "));
    }
    SECTION("a picture that would replace the weights or the image") {
        const std::string before = file_bytes(trained.weights), image_before = file_bytes(trained.rows);
        const ProcessResult over_weights =
            run_command(backprop("inspect " + weights + " " + image + " --saliency " + weights));
        CHECK(over_weights.exit_code == 2);
        CHECK_THAT(
            over_weights.output,
            Catch::Contains("--saliency " + trained.weights.string() +
                            " is the weights file that this command reads; write the picture under another name"));
        const ProcessResult over_image =
            run_command(backprop("inspect " + weights + " " + image + " --occlusion " + image));
        CHECK(over_image.exit_code == 2);
        CHECK(file_bytes(trained.weights) == before);
        CHECK(file_bytes(trained.rows) == image_before);
    }
    SECTION("two pictures under one name, before any picture is written") {
        const std::filesystem::path out = trained.dir.path() / "clash";
        std::filesystem::create_directories(out);
        // An earlier picture under that name stays as it was.
        std::ofstream(out / "maps.png") << "an earlier picture";
        const ProcessResult both =
            run_command(backprop("inspect " + weights + " " + image + " --occlusion " + quote(out / "maps.png") +
                                 " --saliency " + quote(out / "." / "maps.png")));
        CHECK(both.exit_code == 2);
        CHECK_THAT(both.output,
                   Catch::Contains("--occlusion and --saliency would both write " + (out / "." / "maps.png").string() +
                                   "; give each picture its own name"));
        CHECK(file_bytes(out / "maps.png") == "an earlier picture");
        // A map written where a layer's picture goes.
        const ProcessResult layer =
            run_command(backprop("inspect " + weights + " " + image + " --activations " + quote(out / "layers") +
                                 " --saliency " + quote(out / "layers" / "02-fc1.png")));
        CHECK(layer.exit_code == 2);
        CHECK_THAT(layer.output, Catch::Contains("--saliency and --activations would both write " +
                                                 (out / "layers" / "02-fc1.png").string()));
        CHECK(!std::filesystem::exists(out / "layers"));
    }
    SECTION("a patch larger than the images, before any picture is written") {
        const std::filesystem::path out = trained.dir.path() / "no-pictures";
        const ProcessResult result =
            run_command(backprop("inspect " + weights + " " + image + " --activations " + quote(out) + " --occlusion " +
                                 quote(out / "o.png") + " --patch 9"));
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::Contains("--patch 9 is larger than the network's 8x8 images; give 1 to 8"));
        CHECK(!std::filesystem::exists(out));
    }
    SECTION("a class the network lacks") {
        const ProcessResult result = run_command(backprop("inspect " + weights + " " + image + " --class stars"));
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.output, Catch::Contains("--class 'stars' is not one of the network's classes (columns, "
                                                  "rows) or an index from 0 to 1"));
    }
}

TEST_CASE("inspect's help names every option", "[cli][inspect]") {
    const ProcessResult result = run_command(backprop("inspect --help"));
    REQUIRE(result.exit_code == 0);
    for (const char* option : {"--weights", "--layer", "--activations", "--occlusion", "--patch", "--stride",
                               "--saliency", "--class", "--device", "--json"})
        CHECK_THAT(result.output, Catch::Contains(option));
    const ProcessResult overview = run_command(backprop("--help"));
    CHECK_THAT(overview.output, Catch::Contains("  inspect   "));
}
