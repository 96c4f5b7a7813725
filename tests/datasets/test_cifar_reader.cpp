#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "datasets/cifar_reader.h"
#include "tests/datasets/sample_files.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr std::size_t kPlane = 32 * 32;

using bps::test::write_bytes;
using bps::test::write_text;

struct Record {
    Bytes labels;  // 1 for CIFAR-10, coarse then fine for CIFAR-100
    Bytes pixels;  // 3072: red plane, green plane, blue plane
};

Record random_record(Bytes labels, std::mt19937& random) {
    std::uniform_int_distribution<int> value(1, 255);  // never 0: an unread pixel shows
    Record record{std::move(labels), Bytes(3 * kPlane)};
    for (auto& p : record.pixels) p = static_cast<std::uint8_t>(value(random));
    return record;
}

Bytes batch(const std::vector<Record>& records) {
    Bytes bytes;
    for (const Record& r : records) {
        bytes.insert(bytes.end(), r.labels.begin(), r.labels.end());
        bytes.insert(bytes.end(), r.pixels.begin(), r.pixels.end());
    }
    return bytes;
}

std::vector<std::string> names(std::size_t count) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back("class " + std::to_string(i));
    return out;
}

}  // namespace

TEST_CASE("CIFAR-10 batches are concatenated in order with labels and channel planes in place", "[cifar]") {
    test::TempDir dir("cifar10");
    std::mt19937 random(11);
    std::vector<Record> records;
    for (std::uint8_t label : {3, 0, 9, 5, 7}) records.push_back(random_record({label}, random));
    write_bytes(dir.path() / "data_batch_1.bin", batch({records[0], records[1], records[2]}));
    write_bytes(dir.path() / "data_batch_2.bin", batch({records[3], records[4]}));

    CHECK(datasets::cifar_record_bytes(datasets::CifarVariant::cifar10) == 3073);
    const datasets::Dataset dataset =
        datasets::read_cifar_batches({dir.path() / "data_batch_1.bin", dir.path() / "data_batch_2.bin"},
                                     datasets::CifarVariant::cifar10, names(10), "CIFAR-10 train");
    CHECK(dataset.name == "CIFAR-10 train");
    CHECK(dataset.shape == datasets::ImageShape{3, 32, 32});
    CHECK(dataset.class_names == names(10));
    REQUIRE(dataset.size() == 5);
    REQUIRE(dataset.images.size() == 5 * 3 * kPlane);
    for (std::size_t n = 0; n < records.size(); ++n) {
        CHECK(dataset.labels[n] == records[n].labels[0]);
        const auto image = dataset.image(n);
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t y = 0; y < 32; ++y)
                for (std::size_t x = 0; x < 32; ++x) {
                    const std::uint8_t expected = records[n].pixels[c * kPlane + y * 32 + x];
                    INFO("image " << n << " channel " << c << " row " << y << " column " << x);
                    REQUIRE(image[(c * 32 + y) * 32 + x] == static_cast<float>(expected) / 255.0f);
                }
    }
}

TEST_CASE("CIFAR-100 records give the fine or the coarse label", "[cifar]") {
    test::TempDir dir("cifar100");
    std::mt19937 random(12);
    const std::vector<Record> records{random_record({4, 72}, random), random_record({19, 99}, random),
                                      random_record({0, 5}, random)};
    const auto file = dir.path() / "train.bin";
    write_bytes(file, batch(records));
    CHECK(datasets::cifar_record_bytes(datasets::CifarVariant::cifar100_fine) == 3074);
    CHECK(datasets::cifar_record_bytes(datasets::CifarVariant::cifar100_coarse) == 3074);

    const auto fine = datasets::read_cifar_batches({file}, datasets::CifarVariant::cifar100_fine, names(100), "fine");
    const auto coarse =
        datasets::read_cifar_batches({file}, datasets::CifarVariant::cifar100_coarse, names(20), "coarse");
    CHECK(fine.labels == std::vector<std::int32_t>{72, 99, 5});
    CHECK(coarse.labels == std::vector<std::int32_t>{4, 19, 0});
    for (const auto* dataset : {&fine, &coarse}) {
        REQUIRE(dataset->images.size() == 3 * 3 * kPlane);
        for (std::size_t n = 0; n < 3; ++n)
            for (std::size_t i = 0; i < 3 * kPlane; ++i)
                REQUIRE(dataset->images[n * 3 * kPlane + i] == static_cast<float>(records[n].pixels[i]) / 255.0f);
    }
    REQUIRE_THROWS_AS(datasets::read_cifar_batches({file}, datasets::CifarVariant::cifar100_coarse, names(100), "x"),
                      std::invalid_argument);
    REQUIRE_THROWS_AS(datasets::read_cifar_batches({file}, datasets::CifarVariant::cifar100_fine, names(20), "x"),
                      std::invalid_argument);
    REQUIRE_THROWS_AS(datasets::read_cifar_batches({file}, datasets::CifarVariant::cifar10, names(9), "x"),
                      std::invalid_argument);
}

TEST_CASE("Damaged CIFAR batches are refused naming the file", "[cifar]") {
    test::TempDir dir("cifar-damaged");
    std::mt19937 random(13);
    const auto good = dir.path() / "good.bin";
    const auto bad = dir.path() / "bad.bin";
    write_bytes(good, batch({random_record({1}, random)}));
    auto read10 = [&](const std::filesystem::path& second) {
        return datasets::read_cifar_batches({good, second}, datasets::CifarVariant::cifar10, names(10), "x");
    };

    Bytes cut = batch({random_record({1}, random), random_record({2}, random)});
    cut.pop_back();
    write_bytes(bad, cut);
    REQUIRE_THROWS_WITH(read10(bad),
                        test::error_text(bad, "size 6145 bytes is not a multiple of the 3073-byte CIFAR-10 record"));
    REQUIRE_THROWS_WITH(datasets::read_cifar_batches({bad}, datasets::CifarVariant::cifar100_fine, names(100), "x"),
                        test::error_text(bad, "size 6145 bytes is not a multiple of the 3074-byte CIFAR-100 record"));

    write_bytes(bad, {});
    REQUIRE_THROWS_WITH(read10(bad), test::error_text(bad, "is empty"));

    std::vector<Record> records;
    for (std::uint8_t label : {0, 1, 2, 3, 4, 10, 5}) records.push_back(random_record({label}, random));
    write_bytes(bad, batch(records));
    REQUIRE_THROWS_WITH(read10(bad), test::error_text(bad, "label 10 in record 5 is outside the 10 classes"));

    // A fine label of 100 and a coarse label of 20 are each one past their range.
    write_bytes(bad, batch({random_record({3, 50}, random), random_record({20, 100}, random)}));
    REQUIRE_THROWS_WITH(datasets::read_cifar_batches({bad}, datasets::CifarVariant::cifar100_fine, names(100), "x"),
                        test::error_text(bad, "label 100 in record 1 is outside the 100 classes"));
    REQUIRE_THROWS_WITH(datasets::read_cifar_batches({bad}, datasets::CifarVariant::cifar100_coarse, names(20), "x"),
                        test::error_text(bad, "label 20 in record 1 is outside the 20 classes"));

    const auto missing = dir.path() / "data_batch_9.bin";
    REQUIRE_THROWS_WITH(read10(missing), test::error_text(missing, "does not exist"));
}

TEST_CASE("Class names files: one name a line, Windows line ends and blank lines ignored", "[cifar]") {
    test::TempDir dir("cifar-names");
    const auto file = dir.path() / "batches.meta.txt";
    write_text(file, "airplane\r\nautomobile\r\n\r\nbird\ncat  \ndeer\ndog\nfrog\nhorse\n\nship\ntruck\n\n");
    CHECK(datasets::read_class_names_file(file, 10) == std::vector<std::string>{"airplane", "automobile", "bird", "cat",
                                                                                "deer", "dog", "frog", "horse", "ship",
                                                                                "truck"});
    write_text(file, "sea creature\nship\ntruck");  // no newline at the end
    CHECK(datasets::read_class_names_file(file, 3) == std::vector<std::string>{"sea creature", "ship", "truck"});

    write_text(file, "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\n\n");
    REQUIRE_THROWS_WITH(datasets::read_class_names_file(file, 10),
                        test::error_text(file, "holds 9 class names; expected 10"));
    write_text(file, "only\n");
    REQUIRE_THROWS_WITH(datasets::read_class_names_file(file, 2),
                        test::error_text(file, "holds 1 class name; expected 2"));
    const auto missing = dir.path() / "fine_label_names.txt";
    REQUIRE_THROWS_WITH(datasets::read_class_names_file(missing, 100), test::error_text(missing, "does not exist"));
}
