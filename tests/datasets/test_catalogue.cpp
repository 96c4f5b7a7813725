#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>

#include "datasets/catalogue.h"
#include "support/process.h"
#include "support/temp_dir.h"

using namespace bps;
using datasets::Availability;

namespace {

void write_text(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

// A catalogue entry for files the test controls, with nothing in a system folder.
datasets::CatalogueEntry small_entry(datasets::DatasetFormat format) {
    datasets::CatalogueEntry entry =
        datasets::catalogue_entry(format == datasets::DatasetFormat::idx ? "mnist" : "cifar10");
    entry.id = "small";
    entry.system_dirs.clear();
    entry.install_hint.clear();
    return entry;
}

}  // namespace

TEST_CASE("the catalogue knows Fashion-MNIST, MNIST, CIFAR-10 and CIFAR-100 with checkable downloads", "[catalogue]") {
    CHECK(datasets::catalogue_ids() == "fashion-mnist, mnist, cifar10, cifar100");
    const std::regex sha256("[0-9a-f]{64}");
    std::set<std::string> hashes;
    for (const datasets::CatalogueEntry& entry : datasets::catalogue()) {
        INFO(entry.id);
        CHECK(entry.class_count >= 10);
        CHECK((entry.class_names.empty() || entry.class_names.size() == entry.class_count));
        CHECK(entry.train_count > entry.test_count);
        REQUIRE_FALSE(entry.downloads.empty());
        for (const datasets::RemoteFile& file : entry.downloads) {
            CHECK(std::regex_match(file.sha256, sha256));
            CHECK(file.url.rfind("http", 0) == 0);
            CHECK(file.url.substr(file.url.size() - file.name.size()) == file.name);
            CHECK(file.size > 1000);
            hashes.insert(file.sha256);
        }
    }
    CHECK(hashes.size() == 10);  // every file has its own checksum: no copy-paste slip
    const datasets::CatalogueEntry& fashion = datasets::catalogue_entry("Fashion-MNIST");
    CHECK(fashion.class_names.front() == "T-shirt/top");
    CHECK(fashion.class_names.back() == "Ankle boot");
    CHECK(datasets::catalogue_entry("cifar10").class_names[3] == "cat");
    CHECK(datasets::catalogue_entry("cifar10").download_bytes() == 170052171);
    REQUIRE_THROWS_WITH(datasets::catalogue_entry("imagenet"),
                        "unknown dataset 'imagenet'; known datasets: fashion-mnist, mnist, cifar10, cifar100");
}

TEST_CASE("a dataset's local state follows what is in its folder", "[catalogue]") {
    test::TempDir root("catalogue-state");
    const datasets::CatalogueEntry idx = small_entry(datasets::DatasetFormat::idx);
    const std::filesystem::path folder = root.path() / "small";
    CHECK(datasets::user_dataset_dir(idx, root.path()) == folder);

    datasets::LocalState state = datasets::local_state(idx, root.path());
    CHECK(state.availability == Availability::missing);
    CHECK(state.folder == folder);
    CHECK(state.missing.size() == 4);

    write_text(folder / "train-images-idx3-ubyte.gz.part", std::string(1234, 'x'));
    state = datasets::local_state(idx, root.path());
    CHECK(state.availability == Availability::partly_downloaded);
    CHECK(state.bytes_present == 1234);

    for (const datasets::RemoteFile& file : idx.downloads) write_text(folder / file.name, "abc");
    state = datasets::local_state(idx, root.path());
    CHECK(state.availability == Availability::ready);
    CHECK(state.missing.empty());
    CHECK(state.bytes_present == 12);

    // An archive format is ready only once unpacked.
    const datasets::CatalogueEntry cifar = small_entry(datasets::DatasetFormat::cifar10);
    write_text(folder / "cifar-10-binary.tar.gz", "abcd");
    CHECK(datasets::local_state(cifar, root.path()).availability == Availability::needs_unpacking);
    for (const std::string& file : cifar.data_files) write_text(folder / file, "x");
    CHECK(datasets::local_state(cifar, root.path()).availability == Availability::ready);

    // A system folder with every file wins over the user's folder.
    datasets::CatalogueEntry packaged = idx;
    packaged.system_dirs = {root.path() / "empty", folder};
    CHECK(datasets::local_state(packaged, root.path() / "elsewhere").folder == folder);
}

TEST_CASE("loading a missing dataset says where to put which files", "[catalogue]") {
    test::TempDir root("catalogue-missing");
    const datasets::CatalogueEntry& mnist = datasets::catalogue_entry("mnist");
    const std::filesystem::path folder = root.path() / "mnist";
    const std::string help = datasets::offline_help(mnist, root.path());
    CHECK_THAT(help, Catch::StartsWith("MNIST is not on this computer. Download it with 'backprop datasets download "
                                       "mnist'. Without a network connection, fetch these files elsewhere and put "
                                       "them into " +
                                       folder.string() + ":"));
    CHECK_THAT(help, Catch::Contains("\n  train-images-idx3-ubyte.gz (9912422 bytes) from "
                                     "https://storage.googleapis.com/cvdf-datasets/mnist/train-images-idx3-ubyte.gz"));
    CHECK_THAT(help, Catch::Contains("\n  t10k-labels-idx1-ubyte.gz (4542 bytes) from "));
    CHECK_THAT(datasets::offline_help(datasets::catalogue_entry("fashion-mnist"), root.path()),
               Catch::Contains("or install it with 'sudo apt-get install dataset-fashion-mnist'"));
    REQUIRE_THROWS_WITH(datasets::load_dataset(mnist, root.path()), folder.string() + ": " + help);
}

TEST_CASE("files copied into the data folder by hand are checked against the catalogue before use", "[catalogue]") {
    test::TempDir root("catalogue-checksum");
    const datasets::CatalogueEntry& mnist = datasets::catalogue_entry("mnist");
    for (const datasets::RemoteFile& file : mnist.downloads) write_text(root.path() / "mnist" / file.name, "not mnist");
    REQUIRE_THROWS_WITH(datasets::load_dataset(mnist, root.path()),
                        (root.path() / "mnist" / "train-images-idx3-ubyte.gz").string() +
                            ": does not match the catalogue's size and SHA-256 for MNIST; delete it and run "
                            "'backprop datasets download mnist'");
}

TEST_CASE("a mirror replaces every download URL's folder", "[catalogue]") {
    const datasets::RemoteFile& file = datasets::catalogue_entry("mnist").downloads[1];
    {
        test::ScopedEnvironment none("BACKPROP_DATASET_MIRROR", std::nullopt);
        CHECK(datasets::download_url(file) == file.url);
    }
    test::ScopedEnvironment mirror("BACKPROP_DATASET_MIRROR", "file:///srv/datasets");
    CHECK(datasets::download_url(file) == "file:///srv/datasets/train-labels-idx1-ubyte.gz");
}

TEST_CASE("Fashion-MNIST loads from Debian's package through the catalogue", "[catalogue][real]") {
    const datasets::CatalogueEntry& fashion = datasets::catalogue_entry("fashion-mnist");
    test::TempDir root("catalogue-real");
    const datasets::LocalState state = datasets::local_state(fashion, root.path());
    if (state.availability != Availability::ready) {
        WARN("dataset-fashion-mnist is not installed; nothing to check");
        return;
    }
    CHECK(state.folder == "/usr/share/datasets/fashion-mnist");
    const datasets::DatasetSplits splits = datasets::load_dataset(fashion, root.path());
    CHECK(splits.train.size() == 60000);
    CHECK(splits.test.size() == 10000);
    CHECK(splits.train.shape == datasets::ImageShape{1, 28, 28});
    CHECK(splits.train.labels.front() == 9);
    CHECK(splits.train.class_names[9] == "Ankle boot");
    CHECK(splits.train.name == "Fashion-MNIST train");
    CHECK(splits.test.name == "Fashion-MNIST test");
}
