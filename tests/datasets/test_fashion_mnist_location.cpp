#include <catch2/catch.hpp>
#include <fstream>

#include "datasets/fashion_mnist_location.h"
#include "support/temp_dir.h"

using namespace bps;

TEST_CASE("Fashion-MNIST is found in a folder holding its four files and not in one missing a file") {
    test::TempDir complete("fmnist-complete"), partial("fmnist-partial");
    for (const std::string& file : datasets::fashion_mnist_files()) {
        std::ofstream(complete.path() / file) << "x";
        if (file.rfind("t10k-labels", 0) != 0) std::ofstream(partial.path() / file) << "x";
    }
    CHECK(datasets::find_fashion_mnist({partial.path()}) == std::nullopt);
    CHECK(datasets::find_fashion_mnist({partial.path(), complete.path()}) == complete.path());
    CHECK(datasets::find_fashion_mnist({complete.path() / "absent"}) == std::nullopt);
    CHECK_THAT(datasets::fashion_mnist_missing_help(), Catch::Contains("dataset-fashion-mnist"));
}

TEST_CASE("Debian's dataset-fashion-mnist package is found where it installs") {
    const std::filesystem::path debian = "/usr/share/datasets/fashion-mnist";
    if (!std::filesystem::exists(debian / "train-images-idx3-ubyte.gz")) {
        WARN("dataset-fashion-mnist is not installed; nothing to check");
        return;
    }
    REQUIRE(datasets::find_fashion_mnist() == debian);
    // The gzip of 60,000 28x28 images is about 26 MB; a stub file would be far smaller.
    CHECK(std::filesystem::file_size(debian / "train-images-idx3-ubyte.gz") > 20'000'000);
}
