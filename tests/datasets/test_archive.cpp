#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "datasets/archive.h"
#include "datasets/dataset.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using test::random_bytes;
using test::read_all;
using test::write_tar_gz;
using Entries = test::ArchiveEntries;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST_CASE("A .tar.gz is extracted with its subfolders and exact contents", "[archive]") {
    test::TempDir dir("archive");
    const Entries entries = {{"cifar-10-batches-bin/data_batch_1.bin", random_bytes(200'000, 1)},
                             {"cifar-10-batches-bin/batches.meta.txt", random_bytes(1'234, 2)}};
    write_tar_gz(dir.path() / "cifar.tar.gz", entries);

    const fs::path out = dir.path() / "out";
    const auto extracted = datasets::extract_archive(dir.path() / "cifar.tar.gz", out);
    REQUIRE(extracted.size() == 2);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        CHECK(extracted[i] == out / entries[i].first);
        CHECK(read_all(out / entries[i].first) == entries[i].second);
        CHECK_FALSE(fs::exists(out / (entries[i].first + ".part")));
    }
}

TEST_CASE("An archive entry reaching outside the folder is refused", "[archive]") {
    test::TempDir dir("archive");
    write_tar_gz(dir.path() / "evil.tar.gz", {{"../evil.txt", random_bytes(100, 3)}});
    const fs::path out = dir.path() / "out";
    REQUIRE_THROWS_WITH(datasets::extract_archive(dir.path() / "evil.tar.gz", out),
                        (dir.path() / "evil.tar.gz").string() + ": holds an unsafe path '../evil.txt'");
    CHECK_FALSE(fs::exists(dir.path() / "evil.txt"));
    CHECK_FALSE(fs::exists(dir.path() / "evil.txt.part"));

    write_tar_gz(dir.path() / "absolute.tar.gz", {{"/tmp/bps-absolute-evil.txt", random_bytes(100, 4)}});
    REQUIRE_THROWS_WITH(datasets::extract_archive(dir.path() / "absolute.tar.gz", out),
                        Catch::EndsWith("holds an unsafe path '/tmp/bps-absolute-evil.txt'"));
    CHECK_FALSE(fs::exists("/tmp/bps-absolute-evil.txt"));
}

TEST_CASE("A truncated archive is reported as damaged", "[archive]") {
    test::TempDir dir("archive");
    write_tar_gz(dir.path() / "whole.tar.gz", {{"data/a.bin", random_bytes(300'000, 5)}});
    const std::vector<char> whole = read_all(dir.path() / "whole.tar.gz");
    std::ofstream(dir.path() / "half.tar.gz", std::ios::binary)
        .write(whole.data(), static_cast<std::streamsize>(whole.size() / 2));

    REQUIRE_THROWS_AS(datasets::extract_archive(dir.path() / "half.tar.gz", dir.path() / "out"),
                      datasets::DatasetError);
    REQUIRE_THROWS_WITH(datasets::extract_archive(dir.path() / "half.tar.gz", dir.path() / "out"),
                        Catch::StartsWith((dir.path() / "half.tar.gz").string() + ": is damaged: "));
    CHECK_FALSE(fs::exists(dir.path() / "out" / "data" / "a.bin"));
    CHECK_FALSE(fs::exists(dir.path() / "out" / "data" / "a.bin.part"));
}

TEST_CASE("A file that is not an archive gives an error naming it", "[archive]") {
    test::TempDir dir("archive");
    std::ofstream(dir.path() / "notes.txt") << "These are plain notes about training, not an archive.\n";
    REQUIRE_THROWS_WITH(datasets::extract_archive(dir.path() / "notes.txt", dir.path() / "out"),
                        Catch::StartsWith((dir.path() / "notes.txt").string() + ": is not an archive"));
}
