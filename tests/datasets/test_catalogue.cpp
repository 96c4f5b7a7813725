#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>

#include "datasets/catalogue.h"
#include "datasets/download.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using datasets::Availability;

namespace {

using bps::test::write_text;

// A catalogue entry for files the test controls, with nothing in a system folder.
datasets::CatalogueEntry small_entry(datasets::DatasetFormat format) {
    datasets::CatalogueEntry entry =
        datasets::catalogue_entry(format == datasets::DatasetFormat::idx ? "mnist" : "cifar10");
    entry.id = "small";
    entry.system_dirs.clear();
    entry.install_hint.clear();
    return entry;
}

// CIFAR-10 records: label byte, then 3072 random pixel bytes.
std::vector<char> cifar_records(const std::vector<int>& labels, unsigned seed) {
    std::vector<char> bytes;
    for (std::size_t record = 0; record < labels.size(); ++record) {
        bytes.push_back(static_cast<char>(labels[record]));
        const std::vector<char> pixels = test::random_bytes(3072, seed + static_cast<unsigned>(record));
        bytes.insert(bytes.end(), pixels.begin(), pixels.end());
    }
    return bytes;
}

float pixel(const std::vector<char>& records, std::size_t record, std::size_t offset) {
    return static_cast<float>(static_cast<unsigned char>(records[record * 3073 + 1 + offset])) / 255.0f;
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

TEST_CASE("a CIFAR-format dataset is downloaded, verified, unpacked and read by name", "[catalogue][download]") {
    test::TempDir server("catalogue-server"), root("catalogue-pipeline");
    const std::vector<char> train = cifar_records({3, 9, 0}, 10), test_split = cifar_records({7, 1}, 20);
    test::write_tar_gz(server.path() / "small-cifar.tar.gz",
                       {{"small/data_batch_1.bin", train}, {"small/test_batch.bin", test_split}});
    datasets::CatalogueEntry entry = small_entry(datasets::DatasetFormat::cifar10);
    entry.train_count = 3;
    entry.test_count = 2;
    entry.data_files = {"small/data_batch_1.bin", "small/test_batch.bin"};
    const std::filesystem::path archive = server.path() / "small-cifar.tar.gz";
    entry.downloads = {{"small-cifar.tar.gz", "file://" + archive.generic_string(), std::filesystem::file_size(archive),
                        datasets::sha256_of_file(archive)}};
    test::ScopedEnvironment no_mirror("BACKPROP_DATASET_MIRROR", std::nullopt);

    std::uint64_t last_received = 0;
    datasets::download_dataset(entry, root.path(), [&](const datasets::DownloadProgress& progress) {
        last_received = progress.received;
        return true;
    });
    CHECK(last_received == entry.downloads[0].size);
    CHECK(datasets::local_state(entry, root.path()).availability == Availability::ready);

    const auto check_splits = [&](const datasets::DatasetSplits& splits) {
        REQUIRE(splits.train.size() == 3);
        REQUIRE(splits.test.size() == 2);
        CHECK(splits.train.labels == std::vector<std::int32_t>{3, 9, 0});
        CHECK(splits.test.labels == std::vector<std::int32_t>{7, 1});
        CHECK(splits.train.class_names[9] == "truck");
        // Blue plane, last pixel, of the second training image; first pixel of the second test image.
        CHECK(splits.train.image(1)[3071] == pixel(train, 1, 3071));
        CHECK(splits.test.image(1)[0] == pixel(test_split, 1, 0));
    };
    check_splits(datasets::load_dataset(entry, root.path()));

    // Unpacked files removed: loading unpacks the (verified) archive again.
    std::filesystem::remove_all(root.path() / "small" / "small");
    CHECK(datasets::local_state(entry, root.path()).availability == Availability::needs_unpacking);
    check_splits(datasets::load_dataset(entry, root.path()));

    // A catalogue that expects more images than the files hold says so.
    entry.train_count = 50000;
    REQUIRE_THROWS_WITH(datasets::load_dataset(entry, root.path()),
                        (root.path() / "small" / "small" / "data_batch_1.bin").string() +
                            ": holds 3 images; CIFAR-10's training set has 50000");
}
