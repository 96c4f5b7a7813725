// The images an evaluation of a project uses, in its samples' order: a whole image folder (which
// has no test split) read back against the pixels written, and Fashion-MNIST's test split read
// back against its IDX files read directly.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "datasets/idx_reader.h"
#include "engine/project/project_data.h"
#include "tests/support/image_writer.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;

namespace {

// A 4x4 gray image whose every pixel is `value`.
std::vector<std::uint8_t> flat(std::uint8_t value) {
    return std::vector<std::uint8_t>(16, value);
}

void check_same_images(const datasets::Dataset& got, const datasets::Dataset& expected) {
    CHECK(got.shape == expected.shape);
    CHECK(got.class_names == expected.class_names);
    // As booleans: a failure would otherwise print every pixel of 10,000 images.
    const bool same_labels = got.labels == expected.labels, same_images = got.images == expected.images;
    CHECK(same_labels);
    CHECK(same_images);
    CHECK(got.mean.empty());
    CHECK(got.stddev.empty());
}

}  // namespace

TEST_CASE("an image folder's evaluated images are all of its images, in name order and not normalised",
          "[project-data]") {
    test::TempDir dir("evaluated-folder");
    const std::filesystem::path folder = dir.path() / "images";
    // Written out of name order: classes and files are read in name order, whatever the disk does.
    std::filesystem::create_directories(folder / "zebra");
    std::filesystem::create_directories(folder / "apple");
    test::write_test_png(folder / "zebra" / "b.png", 4, 4, 1, flat(200));
    test::write_test_png(folder / "zebra" / "a.png", 4, 4, 1, flat(150));
    test::write_test_png(folder / "apple" / "2.png", 4, 4, 1, flat(100));
    test::write_test_png(folder / "apple" / "1.png", 4, 4, 1, flat(50));

    project::DatasetSettings settings;
    settings.name.clear();
    settings.folder = folder.string();
    settings.height = settings.width = 4;
    settings.channels = 1;
    settings.normalize = true;  // applied by training and evaluation, not to the images shown

    std::size_t reported = 0;
    const datasets::Dataset images =
        session::load_evaluated_images(settings, [&](std::size_t, std::size_t) { ++reported; });
    CHECK(reported > 0);
    REQUIRE(images.size() == 4);
    CHECK(images.class_names == std::vector<std::string>{"apple", "zebra"});
    CHECK(images.labels == std::vector<std::int32_t>{0, 0, 1, 1});
    const std::uint8_t expected[] = {50, 100, 150, 200};
    for (std::size_t i = 0; i < 4; ++i) {
        const std::span<const float> image = images.image(i);
        CHECK(image[0] == Approx(expected[i] / 255.0).margin(1e-6));
        CHECK(image[15] == Approx(expected[i] / 255.0).margin(1e-6));
    }
    // The very images an evaluation reads: the folder's only split.
    const datasets::DatasetSplits splits = session::load_project_data(settings);
    REQUIRE(splits.test.size() == 0);
    check_same_images(images, splits.train);

    settings.folder = (dir.path() / "nowhere").string();
    REQUIRE_THROWS_AS(session::load_evaluated_images(settings), datasets::DatasetError);
}

TEST_CASE("a catalogue dataset's evaluated images are its test split", "[project-data][real]") {
    const std::filesystem::path folder = "/usr/share/datasets/fashion-mnist";
    if (!std::filesystem::exists(folder / "t10k-images-idx3-ubyte.gz")) {
        WARN("dataset-fashion-mnist is not installed; nothing to check");
        return;
    }
    // Nothing in the user's data folder: the Debian package's copy is the one read.
    test::TempDir data("evaluated-catalogue");
    test::ScopedEnvironment data_dir("BACKPROP_DATA_DIR", data.path().string());
    project::DatasetSettings settings;
    settings.name = "fashion-mnist";
    const datasets::Dataset images = session::load_evaluated_images(settings);
    REQUIRE(images.size() == 10000);

    const datasets::Dataset test =
        datasets::read_idx_dataset(folder / "t10k-images-idx3-ubyte.gz", folder / "t10k-labels-idx1-ubyte.gz",
                                   images.class_names, "Fashion-MNIST test");
    check_same_images(images, test);
    CHECK(images.class_names.front() == "T-shirt/top");
}
