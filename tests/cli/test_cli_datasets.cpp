#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

bool debian_fashion_mnist() {
    return std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

std::size_t count_lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("datasets --json lists every known dataset with where it is", "[cli][datasets]") {
    TempDir data("cli-datasets-list");
    ScopedEnvironment data_dir("BACKPROP_DATA_DIR", data.path().string());
    const ProcessResult result = run_command_stdout(backprop("datasets --json"));
    REQUIRE(result.exit_code == 0);
    const nlohmann::json list = nlohmann::json::parse(result.output);
    CHECK(list["data_folder"] == data.path().string());
    REQUIRE(list["datasets"].size() == 4);
    const nlohmann::json& mnist = list["datasets"][1];
    CHECK(mnist["id"] == "mnist");
    CHECK(mnist["state"] == "missing");
    CHECK(mnist["folder"] == (data.path() / "mnist").string());
    CHECK(mnist["download_bytes"] == 9912422 + 28881 + 1648877 + 4542);
    CHECK(mnist["shape"] == nlohmann::json::array({1, 28, 28}));
    CHECK(list["datasets"][2]["classes"] == 10);
    CHECK(list["datasets"][3]["classes"] == 100);
    if (debian_fashion_mnist()) CHECK(list["datasets"][0]["state"] == "ready");

    const ProcessResult table = run_command(backprop("datasets"));
    REQUIRE(table.exit_code == 0);
    CHECK_THAT(table.output, Catch::Contains("downloads go to " + data.path().string()));
    CHECK_THAT(table.output, Catch::Contains("60000 training + 10000 test images of 1x28x28, 10 classes; not here"));
}

TEST_CASE("datasets show draws a sample with its class", "[cli][datasets]") {
    if (!debian_fashion_mnist()) {
        WARN("dataset-fashion-mnist is not installed; nothing to check");
        return;
    }
    const ProcessResult result = run_command(backprop("datasets show fashion-mnist --sample 0"));
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::StartsWith("Fashion-MNIST train image 0: label 9 (Ankle boot)\n"));
    CHECK(count_lines(result.output) == 1 + 28);
    CHECK_THAT(result.output, Catch::Contains("@@"));  // a boot has dark-on-light strokes

    const ProcessResult summary = run_command(backprop("datasets show fashion-mnist"));
    REQUIRE(summary.exit_code == 0);
    CHECK_THAT(summary.output, Catch::Contains("Fashion-MNIST train: 60000 images of 1x28x28\n"));
    CHECK_THAT(summary.output, Catch::Contains("  9  Ankle boot: 6000\n"));
    CHECK_THAT(summary.output, Catch::Contains("Fashion-MNIST test: 10000 images of 1x28x28\n"));
}

TEST_CASE("datasets show and download explain what is missing or wrong", "[cli][datasets]") {
    TempDir data("cli-datasets-errors");
    ScopedEnvironment data_dir("BACKPROP_DATA_DIR", data.path().string());

    const ProcessResult missing = run_command(backprop("datasets show mnist"));
    CHECK(missing.exit_code == 1);
    CHECK_THAT(missing.output, Catch::Contains("MNIST is not on this computer. Download it with 'backprop datasets "
                                               "download mnist'"));
    CHECK_THAT(missing.output, Catch::Contains((data.path() / "mnist").string()));

    const ProcessResult unknown = run_command(backprop("datasets download imagenet"));
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.output, Catch::Contains("unknown dataset 'imagenet'; known datasets: fashion-mnist, mnist"));

    CHECK(run_command(backprop("datasets download")).exit_code == 2);
    CHECK(run_command(backprop("datasets fetch mnist")).exit_code == 2);
    if (debian_fashion_mnist()) {
        const ProcessResult past = run_command(backprop("datasets show fashion-mnist --test --sample 10000"));
        CHECK(past.exit_code == 2);
        CHECK_THAT(past.output, Catch::Contains("--sample 10000 is past the last image (9999) of Fashion-MNIST test"));
    }
}

TEST_CASE("a download whose files do not match the catalogue is refused and leaves nothing behind", "[cli][datasets]") {
    TempDir data("cli-datasets-mirror"), mirror("cli-datasets-mirror-files");
    ScopedEnvironment data_dir("BACKPROP_DATA_DIR", data.path().string());
    // A mirror serving a file of the right size but other content.
    std::ofstream(mirror.path() / "train-images-idx3-ubyte.gz", std::ios::binary) << std::string(9912422, 'm');
    ScopedEnvironment mirror_url("BACKPROP_DATASET_MIRROR", "file://" + mirror.path().generic_string());
    const ProcessResult result = run_command(backprop("datasets download mnist"));
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("train-images-idx3-ubyte.gz: checksum mismatch (expected 440fcabf73cc"));
    CHECK_FALSE(std::filesystem::exists(data.path() / "mnist" / "train-images-idx3-ubyte.gz"));
    CHECK_FALSE(std::filesystem::exists(data.path() / "mnist" / "train-images-idx3-ubyte.gz.part"));

    // The next file is not on the mirror at all: the error names the URL.
    std::filesystem::remove(mirror.path() / "train-images-idx3-ubyte.gz");
    const ProcessResult absent = run_command(backprop("datasets download mnist"));
    CHECK(absent.exit_code == 1);
    CHECK_THAT(absent.output, Catch::Contains("could not download file://" + mirror.path().generic_string() +
                                              "/train-images-idx3-ubyte.gz"));
    CHECK_THAT(absent.output,
               Catch::Contains("\nWithout a network connection, fetch these files elsewhere and put them "
                               "into " +
                               (data.path() / "mnist").string() + ":\n"));
}

TEST_CASE("datasets show reads an image folder and lists the files it skipped", "[cli][datasets]") {
    TempDir folder("cli-datasets-folder");
    const auto gray = [](std::uint8_t level) { return std::vector<std::uint8_t>(6 * 4, level); };
    for (const char* name : {"cats", "dogs"}) std::filesystem::create_directories(folder.path() / name);
    write_test_png(folder.path() / "cats" / "a.png", 6, 4, 1, gray(200));
    write_test_png(folder.path() / "cats" / "b.png", 6, 4, 1, gray(90));
    write_test_png(folder.path() / "dogs" / "c.png", 6, 4, 1, gray(30));
    std::ofstream(folder.path() / "dogs" / "broken.png") << "not a picture";

    const ProcessResult result = run_command(backprop("datasets show \"" + folder.path().string() + "\" --size 4x6"));
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Contains("skipped 1 file that could not be read:\n  " +
                                              (folder.path() / "dogs" / "broken.png").string() + ": "));
    CHECK_THAT(result.output, Catch::Contains(": 3 images of 1x4x6\n  0  cats: 2\n  1  dogs: 1\n"));

    const ProcessResult sample =
        run_command(backprop("datasets show \"" + folder.path().string() + "\" --size 4x6 --sample 2"));
    REQUIRE(sample.exit_code == 0);
    CHECK_THAT(sample.output, Catch::Contains("image 2: label 1 (dogs)\n"));

    const ProcessResult wrong = run_command(backprop("datasets show \"" + folder.path().string() + "\" --channels 2"));
    CHECK(wrong.exit_code == 1);
    CHECK_THAT(wrong.output, Catch::Contains("channels must be 1 (grayscale) or 3 (RGB), not 2"));
}
