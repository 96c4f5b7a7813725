#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "datasets/download.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using test::random_bytes;
using test::read_all;
using test::write_all;
namespace fs = std::filesystem;

namespace {

std::string file_url(const fs::path& file) {
    return "file://" + fs::absolute(file).generic_string();
}

// A 300 KB source file behind a file:// URL, catalogued with its true size and checksum.
struct Source {
    test::TempDir dir{"download-source"};
    std::vector<char> bytes = random_bytes(300 * 1024, 7);
    datasets::RemoteFile remote;
    Source() {
        write_all(dir.path() / "source.bin", bytes);
        remote.name = "data.bin";
        remote.url = file_url(dir.path() / "source.bin");
        remote.size = bytes.size();
        remote.sha256 = datasets::sha256_of_file(dir.path() / "source.bin");
    }
};

struct Recorder {
    std::vector<datasets::DownloadProgress> reports;
    datasets::ProgressCallback callback() {
        return [this](const datasets::DownloadProgress& p) {
            reports.push_back(p);
            return true;
        };
    }
};

}  // namespace

TEST_CASE("sha256_of_file matches the published SHA-256 test vectors", "[download]") {
    test::TempDir dir("sha256");
    std::ofstream(dir.path() / "abc") << "abc";
    std::ofstream(dir.path() / "empty").flush();
    std::ofstream(dir.path() / "million-a") << std::string(1'000'000, 'a');
    CHECK(datasets::sha256_of_file(dir.path() / "abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(datasets::sha256_of_file(dir.path() / "empty") ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(datasets::sha256_of_file(dir.path() / "million-a") ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK_THROWS_WITH(datasets::sha256_of_file(dir.path() / "absent"), Catch::Contains("absent"));
}

TEST_CASE("A fresh download equals the source and its progress ends at the total", "[download]") {
    Source source;
    test::TempDir target("download-target");
    Recorder recorder;
    datasets::download_file(source.remote, target.path() / "nested", recorder.callback());

    CHECK(read_all(target.path() / "nested" / "data.bin") == source.bytes);
    CHECK_FALSE(fs::exists(target.path() / "nested" / "data.bin.part"));
    REQUIRE_FALSE(recorder.reports.empty());
    CHECK(recorder.reports.back().received == source.bytes.size());
    CHECK(recorder.reports.back().total == source.bytes.size());
    CHECK(recorder.reports.back().file == "data.bin");
    CHECK(datasets::is_verified(source.remote, target.path() / "nested"));
}

TEST_CASE("A cancelled download keeps its .part and the next call resumes from it", "[download]") {
    Source source;
    test::TempDir target("download-target");
    const fs::path part = target.path() / "data.bin.part";
    auto cancel_once_data_arrived = [](const datasets::DownloadProgress& p) { return p.received == 0; };
    REQUIRE_THROWS_AS(datasets::download_file(source.remote, target.path(), cancel_once_data_arrived),
                      datasets::DownloadCancelled);
    REQUIRE(fs::exists(part));
    CHECK_FALSE(fs::exists(target.path() / "data.bin"));
    const auto part_size = fs::file_size(part);
    REQUIRE(part_size > 0);
    REQUIRE(part_size < source.bytes.size());
    CHECK_THROWS_WITH(datasets::download_file(source.remote, target.path(), cancel_once_data_arrived),
                      Catch::StartsWith("download of data.bin stopped; run it again to resume from 0."));

    Recorder recorder;
    datasets::download_file(source.remote, target.path(), recorder.callback());
    CHECK(read_all(target.path() / "data.bin") == source.bytes);
    CHECK_FALSE(fs::exists(part));
    REQUIRE_FALSE(recorder.reports.empty());
    // A restart would report from 0; a resume starts at what the .part already held.
    CHECK(recorder.reports.front().received >= part_size);
    CHECK(recorder.reports.back().received == source.bytes.size());
}

TEST_CASE("A .part longer than the file is discarded and the download restarts cleanly", "[download]") {
    Source source;
    test::TempDir target("download-target");
    write_all(target.path() / "data.bin.part", random_bytes(source.bytes.size() + 1000, 99));
    datasets::download_file(source.remote, target.path(), nullptr);
    CHECK(read_all(target.path() / "data.bin") == source.bytes);
    CHECK_FALSE(fs::exists(target.path() / "data.bin.part"));
}

TEST_CASE("A checksum mismatch removes the download and says so", "[download]") {
    Source source;
    test::TempDir target("download-target");
    source.remote.sha256 = "3aed0000111122223333444455556666777788889999aaaabbbbccccddddeeee";
    const std::string actual = datasets::sha256_of_file(source.dir.path() / "source.bin");
    REQUIRE_THROWS_WITH(datasets::download_file(source.remote, target.path(), nullptr),
                        "data.bin: checksum mismatch (expected 3aed00001111\xE2\x80\xA6, got " + actual.substr(0, 12) +
                            "\xE2\x80\xA6); the damaged download was removed, run the download again");
    CHECK_FALSE(fs::exists(target.path() / "data.bin.part"));
    CHECK_FALSE(fs::exists(target.path() / "data.bin"));
}

TEST_CASE("A download of the wrong size is removed, whether shorter or longer than catalogued", "[download]") {
    Source source;
    test::TempDir target("download-target");
    SECTION("shorter") {
        source.remote.size = source.bytes.size() + 1000;
        REQUIRE_THROWS_WITH(datasets::download_file(source.remote, target.path(), nullptr),
                            "data.bin: the download has 307200 bytes, expected 308200; the damaged download was "
                            "removed, run the download again");
    }
    SECTION("longer: the transfer stops once past the catalogued size") {
        source.remote.size = 1000;
        Recorder recorder;
        REQUIRE_THROWS_WITH(datasets::download_file(source.remote, target.path(), recorder.callback()),
                            Catch::StartsWith("data.bin: the download has ") &&
                                Catch::EndsWith(" bytes, expected 1000; the damaged download was removed, run the "
                                                "download again"));
        // Stopped after the first chunk instead of fetching all 300 KB.
        for (const auto& report : recorder.reports) CHECK(report.received < source.bytes.size());
    }
    CHECK_FALSE(fs::exists(target.path() / "data.bin.part"));
    CHECK_FALSE(fs::exists(target.path() / "data.bin"));
}

TEST_CASE("A missing source is a DownloadError naming the URL", "[download]") {
    Source source;
    test::TempDir target("download-target");
    source.remote.url = file_url(source.dir.path() / "absent.bin");
    REQUIRE_THROWS_AS(datasets::download_file(source.remote, target.path(), nullptr), datasets::DownloadError);
    CHECK_THROWS_WITH(datasets::download_file(source.remote, target.path(), nullptr),
                      Catch::StartsWith("data.bin: could not download " + source.remote.url + ": "));
    CHECK_FALSE(fs::exists(target.path() / "data.bin"));
    CHECK_FALSE(fs::exists(target.path() / "data.bin.part"));  // nothing arrived, nothing to resume
}

TEST_CASE("A verified file is not downloaded again and a damaged one is replaced", "[download]") {
    Source source;
    test::TempDir target("download-target");
    datasets::download_file(source.remote, target.path(), nullptr);

    SECTION("verified: no transfer, one progress report at the total") {
        source.remote.url = file_url(source.dir.path() / "absent.bin");  // any transfer would fail
        Recorder recorder;
        datasets::download_file(source.remote, target.path(), recorder.callback());
        REQUIRE(recorder.reports.size() == 1);
        CHECK(recorder.reports[0].received == source.bytes.size());
        CHECK(recorder.reports[0].total == source.bytes.size());
    }
    SECTION("same size, wrong content: downloaded again") {
        write_all(target.path() / "data.bin", random_bytes(source.bytes.size(), 3));
        CHECK_FALSE(datasets::is_verified(source.remote, target.path()));
        datasets::download_file(source.remote, target.path(), nullptr);
        CHECK(read_all(target.path() / "data.bin") == source.bytes);
    }
    CHECK(datasets::is_verified(source.remote, target.path()));
}

TEST_CASE("A damaged final file is removed even when downloading it again fails", "[download]") {
    Source source;
    test::TempDir target("download-target");
    write_all(target.path() / "data.bin", random_bytes(source.bytes.size(), 4));
    source.remote.url = file_url(source.dir.path() / "absent.bin");
    REQUIRE_THROWS_AS(datasets::download_file(source.remote, target.path(), nullptr), datasets::DownloadError);
    // Anything under the final name must be complete and verified.
    CHECK_FALSE(fs::exists(target.path() / "data.bin"));
}
