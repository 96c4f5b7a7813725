#include <zlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "datasets/file_bytes.h"
#include "datasets/idx_reader.h"
#include "datasets/machine_memory.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/files.h"
#include "tests/support/gzip_bomb.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using Bytes = std::vector<std::uint8_t>;

namespace {

using bps::test::write_bytes;

// A gzip member (header, deflate data, CRC and size) made by zlib itself.
Bytes gzip(const Bytes& plain) {
    z_stream stream{};
    REQUIRE(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    Bytes out(deflateBound(&stream, static_cast<uLong>(plain.size())) + 32);
    stream.next_in = const_cast<Bytef*>(plain.data());
    stream.avail_in = static_cast<uInt>(plain.size());
    stream.next_out = out.data();
    stream.avail_out = static_cast<uInt>(out.size());
    const int result = deflate(&stream, Z_FINISH);
    deflateEnd(&stream);
    REQUIRE(result == Z_STREAM_END);
    out.resize(stream.total_out);
    return out;
}

void append_u32(Bytes& bytes, std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(value >> shift));
}

Bytes idx_header(std::uint8_t type, const std::vector<std::uint32_t>& dimensions) {
    Bytes bytes{0, 0, type, static_cast<std::uint8_t>(dimensions.size())};
    for (std::uint32_t d : dimensions) append_u32(bytes, d);
    return bytes;
}

using bps::test::random_pixels;

Bytes idx_images(std::uint32_t count, std::uint32_t height, std::uint32_t width, const Bytes& pixels) {
    Bytes bytes = idx_header(0x08, {count, height, width});
    bytes.insert(bytes.end(), pixels.begin(), pixels.end());
    return bytes;
}

Bytes idx_labels(const Bytes& labels) {
    Bytes bytes = idx_header(0x08, {static_cast<std::uint32_t>(labels.size())});
    bytes.insert(bytes.end(), labels.begin(), labels.end());
    return bytes;
}

std::vector<std::string> ten_classes() {
    return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

}  // namespace

TEST_CASE("IDX images and labels, plain and gzip, read back value / 255 at every pixel", "[idx]") {
    test::TempDir dir("idx-roundtrip");
    const std::uint32_t count = 5, height = 3, width = 4;
    const Bytes pixels = random_pixels(count * height * width, 7);
    const Bytes labels{3, 9, 1, 4, 1};
    const bool gzipped = GENERATE(false, true);
    const auto images_file = dir.path() / (gzipped ? "images.gz" : "images");
    const auto labels_file = dir.path() / (gzipped ? "labels.gz" : "labels");
    write_bytes(images_file,
                gzipped ? gzip(idx_images(count, height, width, pixels)) : idx_images(count, height, width, pixels));
    write_bytes(labels_file, gzipped ? gzip(idx_labels(labels)) : idx_labels(labels));

    const datasets::IdxImages raw = datasets::read_idx_images(images_file);
    CHECK(raw.count == count);
    CHECK(raw.height == 3);
    CHECK(raw.width == 4);
    CHECK(raw.pixels == pixels);
    CHECK(datasets::read_idx_labels(labels_file) == labels);

    const datasets::Dataset dataset = datasets::read_idx_dataset(images_file, labels_file, ten_classes(), "tiny");
    CHECK(dataset.name == "tiny");
    CHECK(dataset.shape == datasets::ImageShape{1, 3, 4});
    CHECK(dataset.class_names == ten_classes());
    REQUIRE(dataset.size() == count);
    REQUIRE(dataset.images.size() == pixels.size());
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        INFO("pixel " << i);
        REQUIRE(dataset.images[i] == static_cast<float>(pixels[i]) / 255.0f);
    }
    for (std::size_t i = 0; i < labels.size(); ++i) CHECK(dataset.labels[i] == labels[i]);
}

TEST_CASE("read_file_bytes inflates gzip by its magic bytes, joins members and refuses more than the limit", "[idx]") {
    test::TempDir dir("file-bytes");
    const Bytes first = random_pixels(100'000, 1), second = random_pixels(777, 2);
    Bytes joined = gzip(first);
    const Bytes second_gz = gzip(second);
    joined.insert(joined.end(), second_gz.begin(), second_gz.end());
    write_bytes(dir.path() / "two-members.bin", joined);  // gzip whatever the name
    Bytes expected = first;
    expected.insert(expected.end(), second.begin(), second.end());
    CHECK(datasets::read_file_bytes(dir.path() / "two-members.bin") == expected);

    write_bytes(dir.path() / "plain.gz", first);  // not gzip whatever the name
    CHECK(datasets::read_file_bytes(dir.path() / "plain.gz") == first);
    CHECK(datasets::read_file_bytes(dir.path() / "plain.gz", first.size()) == first);

    write_bytes(dir.path() / "empty", {});
    CHECK(datasets::read_file_bytes(dir.path() / "empty").empty());

    REQUIRE_THROWS_WITH(
        datasets::read_file_bytes(dir.path() / "two-members.bin", 100'000),
        test::error_text(dir.path() / "two-members.bin", "is larger than 100000 bytes after decompressing"));
    REQUIRE_THROWS_WITH(datasets::read_file_bytes(dir.path() / "plain.gz", 99'999),
                        test::error_text(dir.path() / "plain.gz", "is larger than 99999 bytes"));
    REQUIRE_THROWS_WITH(datasets::read_file_bytes(dir.path()), test::error_text(dir.path(), "is a folder, not a file"));
}

TEST_CASE("Missing, damaged and truncated files are refused naming the file", "[idx]") {
    test::TempDir dir("idx-damaged");
    const auto missing = dir.path() / "train-images-idx3-ubyte.gz";
    REQUIRE_THROWS_WITH(datasets::read_idx_images(missing), test::error_text(missing, "does not exist"));
    REQUIRE_THROWS_AS(datasets::read_idx_images(missing), datasets::DatasetError);

    // A valid gzip header followed by bytes that are not deflate data.
    const auto damaged = dir.path() / "damaged.gz";
    write_bytes(damaged, {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
    REQUIRE_THROWS_WITH(datasets::read_idx_images(damaged),
                        test::error_text(damaged, "is a damaged gzip file (invalid block type)"));

    const Bytes pixels = random_pixels(10 * 28 * 28, 3);
    const Bytes whole = gzip(idx_images(10, 28, 28, pixels));
    const auto truncated_gz = dir.path() / "truncated.gz";
    write_bytes(truncated_gz, Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 2)));
    REQUIRE_THROWS_WITH(datasets::read_idx_images(truncated_gz),
                        test::error_text(truncated_gz, "the gzip data ends early (the file is truncated)"));
    // Only the 8-byte CRC and size trailer missing: still truncated.
    write_bytes(truncated_gz, Bytes(whole.begin(), whole.end() - 8));
    REQUIRE_THROWS_WITH(datasets::read_idx_images(truncated_gz),
                        test::error_text(truncated_gz, "the gzip data ends early (the file is truncated)"));
}

TEST_CASE("IDX headers that are wrong are refused with what is wrong", "[idx]") {
    test::TempDir dir("idx-header");
    const auto file = dir.path() / "images";
    auto images_problem = [&](const Bytes& bytes) {
        write_bytes(file, bytes);
        try {
            datasets::read_idx_images(file);
        } catch (const datasets::DatasetError& error) {
            CHECK(error.file() == file);
            return std::string(error.what());
        }
        return std::string("no error");
    };
    const Bytes pixels = random_pixels(2 * 3 * 3, 4);

    CHECK(images_problem({0, 0, 8}) ==
          test::error_text(file, "is too short for an IDX header (it holds 3 bytes; the header needs 4)"));
    CHECK(images_problem({0, 0, 8, 3, 0, 0, 0, 2, 0, 0}) ==
          test::error_text(file, "is too short for an IDX header (it holds 10 bytes; the header needs 16)"));
    Bytes magic = idx_images(2, 3, 3, pixels);
    magic[0] = 0x12;
    magic[1] = 0x34;
    CHECK(images_problem(magic) == test::error_text(file, "not an IDX file (magic bytes 12 34, expected 00 00)"));
    Bytes type = idx_images(2, 3, 3, pixels);
    type[2] = 0x0D;
    CHECK(images_problem(type) ==
          test::error_text(file, "IDX type code 0x0D is not supported (only 0x08, unsigned bytes)"));
    CHECK(images_problem(idx_labels({1, 2})) ==
          test::error_text(file, "has 1 dimension; images need 3 (count, height, width)"));
    Bytes four = idx_header(0x08, {2, 3, 3, 1});
    four.insert(four.end(), pixels.begin(), pixels.end());
    CHECK(images_problem(four) == test::error_text(file, "has 4 dimensions; images need 3 (count, height, width)"));
    CHECK(images_problem(idx_header(0x08, {4294967295u, 4294967295u, 4294967295u})) ==
          test::error_text(file, "header dimensions 4294967295 x 4294967295 x 4294967295 overflow"));
    CHECK(images_problem(idx_header(0x08, {4294967295u, 65535, 65535})) ==
          test::error_text(file, "header dimensions 4294967295 x 65535 x 65535 overflow"));
    // No images at all, but the plane alone is past 2^63 bytes.
    CHECK(images_problem(idx_header(0x08, {0, 4294967295u, 4294967295u})) ==
          test::error_text(file, "header dimensions 0 x 4294967295 x 4294967295 overflow"));
    CHECK(images_problem(idx_images(2, 0, 3, {})) ==
          test::error_text(file, "has images of 0 x 3 pixels; each side must be between 1 and 65535"));
    CHECK(images_problem(idx_images(2, 3, 0, {})) ==
          test::error_text(file, "has images of 3 x 0 pixels; each side must be between 1 and 65535"));
    CHECK(images_problem(idx_images(1, 1, 70000, {})) ==
          test::error_text(file, "has images of 1 x 70000 pixels; each side must be between 1 and 65535"));
    CHECK(images_problem(idx_images(60000, 28, 28, random_pixels(1000, 5))) ==
          test::error_text(file, "header promises 47040000 bytes of data but the file holds 1000"));
    Bytes trailing = idx_images(2, 3, 3, pixels);
    trailing.insert(trailing.end(), 16, 0x5a);
    CHECK(images_problem(trailing) == test::error_text(file, "has 16 bytes after the data the header describes"));
    CHECK(images_problem(gzip(trailing)) == test::error_text(file, "has 16 bytes after the data the header describes"));

    const auto labels = dir.path() / "labels";
    write_bytes(labels, idx_images(2, 3, 3, pixels));
    REQUIRE_THROWS_WITH(datasets::read_idx_labels(labels),
                        test::error_text(labels, "has 3 dimensions; labels need 1 (count)"));
    Bytes short_labels = idx_header(0x08, {5});
    short_labels.insert(short_labels.end(), {1, 2, 3});
    write_bytes(labels, short_labels);
    REQUIRE_THROWS_WITH(datasets::read_idx_labels(labels),
                        test::error_text(labels, "header promises 5 bytes of data but the file holds 3"));
    Bytes long_labels = idx_labels({1, 2, 3});
    long_labels.push_back(4);
    write_bytes(labels, long_labels);
    REQUIRE_THROWS_WITH(datasets::read_idx_labels(labels),
                        test::error_text(labels, "has 1 byte after the data the header describes"));
}

TEST_CASE("An IDX pair is refused when the counts differ or a label is past the classes", "[idx]") {
    test::TempDir dir("idx-pair");
    const auto images = dir.path() / "train-images-idx3-ubyte.gz";
    const auto labels = dir.path() / "train-labels-idx1-ubyte.gz";
    write_bytes(images, gzip(idx_images(8, 2, 2, random_pixels(8 * 4, 6))));

    write_bytes(labels, gzip(idx_labels({1, 2, 3, 4, 5, 6, 7})));
    REQUIRE_THROWS_WITH(datasets::read_idx_dataset(images, labels, ten_classes(), "pair"),
                        test::error_text(labels, "has 7 labels but 'train-images-idx3-ubyte.gz' has 8 images"));

    write_bytes(labels, gzip(idx_labels({1, 2, 3, 4, 5, 6, 7, 12})));
    REQUIRE_THROWS_WITH(datasets::read_idx_dataset(images, labels, ten_classes(), "pair"),
                        test::error_text(labels, "label 12 at index 7 is outside the 10 classes"));
    // 9 is a valid label among 10 classes, but not among 9.
    write_bytes(labels, gzip(idx_labels({1, 2, 3, 9, 5, 6, 7, 8})));
    REQUIRE_NOTHROW(datasets::read_idx_dataset(images, labels, ten_classes(), "pair"));
    std::vector<std::string> nine = ten_classes();
    nine.pop_back();
    REQUIRE_THROWS_WITH(datasets::read_idx_dataset(images, labels, nine, "pair"),
                        test::error_text(labels, "label 9 at index 3 is outside the 9 classes"));
}

TEST_CASE("Fashion-MNIST from Debian's package reads with its known counts and mean", "[real]") {
    const std::filesystem::path folder = "/usr/share/datasets/fashion-mnist";
    if (!std::filesystem::exists(folder / "train-images-idx3-ubyte.gz")) {
        WARN("dataset-fashion-mnist is not installed; nothing to check");
        return;
    }
    const std::vector<std::string> classes{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                           "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    const datasets::Dataset train = datasets::read_idx_dataset(
        folder / "train-images-idx3-ubyte.gz", folder / "train-labels-idx1-ubyte.gz", classes, "Fashion-MNIST train");
    const datasets::Dataset test = datasets::read_idx_dataset(
        folder / "t10k-images-idx3-ubyte.gz", folder / "t10k-labels-idx1-ubyte.gz", classes, "Fashion-MNIST test");

    REQUIRE(train.size() == 60000);
    REQUIRE(test.size() == 10000);
    CHECK(train.shape == datasets::ImageShape{1, 28, 28});
    CHECK(test.shape == datasets::ImageShape{1, 28, 28});
    CHECK(train.labels[0] == 9);
    CHECK(train.class_histogram() == std::vector<std::size_t>(10, 6000));
    CHECK(test.class_histogram() == std::vector<std::size_t>(10, 1000));

    double sum = 0;
    bool in_range = true;
    for (float p : train.images) {
        sum += p;
        in_range = in_range && p >= 0.0f && p <= 1.0f;
    }
    for (float p : test.images) in_range = in_range && p >= 0.0f && p <= 1.0f;
    CHECK(in_range);
    CHECK(sum / static_cast<double>(train.images.size()) == Approx(0.2860).margin(0.001));
}

TEST_CASE("a gzip that inflates past what its IDX header describes is refused there, not at 4 GiB", "[idx]") {
    test::TempDir dir("idx-bomb");
    // 10 images of 28x28 promised, 64 MiB inflated: reading stops soon after the promise.
    const auto images = dir.path() / "train-images-idx3-ubyte.gz";
    write_bytes(images, test::gzip_bomb(idx_header(0x08, {10, 28, 28}), std::size_t{64} << 20));
    CHECK(std::filesystem::file_size(images) < (std::size_t{1} << 20));
    REQUIRE_THROWS_WITH(datasets::read_idx_images(images),
                        Catch::StartsWith(images.string() + ": holds more than ") &&
                            Catch::EndsWith(" bytes its header describes after decompressing"));
    const auto labels = dir.path() / "train-labels-idx1-ubyte.gz";
    write_bytes(labels, test::gzip_bomb(idx_header(0x08, {5}), std::size_t{16} << 20));
    REQUIRE_THROWS_WITH(datasets::read_idx_labels(labels),
                        Catch::StartsWith(labels.string() + ": holds more than ") &&
                            Catch::EndsWith(" bytes its header describes after decompressing"));
    // Fewer than 1 MiB of trailing bytes are still counted exactly.
    Bytes trailing = idx_images(2, 3, 3, random_pixels(18, 5));
    trailing.insert(trailing.end(), 1000, 9);
    write_bytes(dir.path() / "trailing.gz", gzip(trailing));
    REQUIRE_THROWS_WITH(
        datasets::read_idx_images(dir.path() / "trailing.gz"),
        test::error_text(dir.path() / "trailing.gz", "has 1000 bytes after the data the header describes"));
}

TEST_CASE("an IDX header that promises more than 4 GiB is refused before its data is read", "[idx]") {
    test::TempDir dir("idx-huge-header");
    const bool gzipped = GENERATE(false, true);
    const auto file = dir.path() / (gzipped ? "images.gz" : "images");
    // 6,000,000 images of 28x28: 4.7 GB promised, 100 bytes held.
    Bytes bytes = idx_images(6'000'000, 28, 28, random_pixels(100, 3));
    write_bytes(file, gzipped ? gzip(bytes) : bytes);
    REQUIRE_THROWS_WITH(datasets::read_idx_images(file),
                        test::error_text(file,
                                         "header promises 4704000000 bytes of data, more than a dataset file may "
                                         "hold (4 GiB); the file is damaged or not a dataset"));
}

// Run by the next test in a child process, under `ulimit -v`: reads IDX_BOMB_FILE and expects
// a DatasetError with IDX_BOMB_EXPECT in it (never a bad_alloc).
TEST_CASE("(child process) an IDX file read under a memory limit", "[.idx-bomb-child]") {
    const char* file = std::getenv("IDX_BOMB_FILE");        // NOLINT(concurrency-mt-unsafe)
    const char* expected = std::getenv("IDX_BOMB_EXPECT");  // NOLINT(concurrency-mt-unsafe)
    REQUIRE(file != nullptr);
    REQUIRE(expected != nullptr);
    REQUIRE_THROWS_WITH(datasets::read_idx_images(file), Catch::Contains(expected));
}

TEST_CASE("a gzip bomb is refused by its IDX header under a 600 MB memory limit, naming the file", "[idx]") {
    test::TempDir dir("idx-bomb-limited");
    const auto file = dir.path() / "train-images-idx3-ubyte.gz";
    test::ScopedEnvironment file_name("IDX_BOMB_FILE", file.string());
    const std::string child = "ulimit -v 600000 && \"" DATASETS_TESTS_EXE "\" \"[idx-bomb-child]\"";
    SECTION("6,000,000 images promised (4.7 GB), 256 MiB inflated from under 1 MB") {
        write_bytes(file, test::gzip_bomb(idx_header(0x08, {6'000'000, 28, 28}), std::size_t{256} << 20));
        test::ScopedEnvironment expected("IDX_BOMB_EXPECT", file.string() + ": header promises 4704000000 bytes");
        const test::ProcessResult result = test::run_command(child, 120);
        INFO(result.output);
        CHECK(result.exit_code == 0);
    }
    SECTION("1,100,000 images promised by a 116-byte file: only what the file can hold is reserved") {
        // Found by fuzzing: the memory for the header's promise was reserved whatever the file's
        // size, so a few damaged bytes asked for 862 MB (and failed under this limit).
        const auto small = dir.path() / "train-images-idx3-ubyte";
        std::vector<std::uint8_t> bytes = idx_header(0x08, {1'100'000, 28, 28});
        bytes.resize(bytes.size() + 100, 7);
        write_bytes(small, bytes);
        test::ScopedEnvironment small_name("IDX_BOMB_FILE", small.string());
        test::ScopedEnvironment expected("IDX_BOMB_EXPECT", small.string() +
                                                                ": header promises 862400000 bytes of "
                                                                "data but the file holds 100");
        const test::ProcessResult result = test::run_command(child, 120);
        INFO(result.output);
        CHECK(result.exit_code == 0);
    }
    SECTION("one image of 65535 x 65535 promised, just under 4 GiB: reserved once, never grown by doubling") {
        // The reservation was skipped when the header's promise reached the 4 GiB limit, so the
        // buffer doubled as the data came: 256 MiB held needed 768 MiB at once (and 4 GiB, 8).
        const std::uint64_t promised = std::uint64_t{65535} * 65535;
        // At zlib's best compression, so that what the file can hold (1032 bytes a byte) is close
        // to the 256 MiB it holds, and reserving that fits under the limit where doubling does not.
        Bytes plain = idx_header(0x08, {1, 65535, 65535});
        plain.resize(plain.size() + (std::size_t{256} << 20), 0);
        write_bytes(file, gzip(plain));
        plain = Bytes{};
        const std::optional<std::uint64_t> memory = datasets::physical_memory_bytes();
        test::ScopedEnvironment expected(
            "IDX_BOMB_EXPECT", memory && *memory < promised * 5
                                   ? file.string() + ": needs 20.0 GiB of memory (4294836225 pixels its header promises"
                                   : file.string() + ": header promises 4294836225 bytes of data but the file holds " +
                                         std::to_string(std::size_t{256} << 20));
        const test::ProcessResult result = test::run_command(child, 120);
        INFO(result.output);
        CHECK(result.exit_code == 0);
    }
    SECTION("1,100,000 images promised (862 MB): a size a file may have, but more memory than the limit") {
        write_bytes(file, test::gzip_bomb(idx_header(0x08, {1'100'000, 28, 28}), std::size_t{256} << 20));
        test::ScopedEnvironment expected("IDX_BOMB_EXPECT",
                                         " MiB of memory to read, more than this computer can give now");
        const test::ProcessResult result = test::run_command(child, 120);
        INFO(result.output);
        CHECK(result.exit_code == 0);
    }
}
