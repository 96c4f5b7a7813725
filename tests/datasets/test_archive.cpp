#include <archive.h>
#include <archive_entry.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "datasets/archive.h"
#include "datasets/dataset.h"
#include "support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

std::vector<char> read_all(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<char> random_bytes(std::size_t count, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<char> bytes(count);
    for (char& b : bytes) b = static_cast<char>(byte(generator));
    return bytes;
}

using Entries = std::vector<std::pair<std::string, std::vector<char>>>;

// Writes a .tar.gz with libarchive's writer, independent of the reader under test.
void write_tar_gz(const fs::path& file, const Entries& entries) {
    archive* writer = archive_write_new();
    REQUIRE(archive_write_add_filter_gzip(writer) == ARCHIVE_OK);
    REQUIRE(archive_write_set_format_pax_restricted(writer) == ARCHIVE_OK);
    REQUIRE(archive_write_open_filename(writer, file.string().c_str()) == ARCHIVE_OK);
    for (const auto& [name, bytes] : entries) {
        archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, name.c_str());
        archive_entry_set_size(entry, static_cast<la_int64_t>(bytes.size()));
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_perm(entry, 0644);
        REQUIRE(archive_write_header(writer, entry) == ARCHIVE_OK);
        REQUIRE(archive_write_data(writer, bytes.data(), bytes.size()) == static_cast<la_ssize_t>(bytes.size()));
        archive_entry_free(entry);
    }
    REQUIRE(archive_write_close(writer) == ARCHIVE_OK);
    archive_write_free(writer);
}

}  // namespace

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
