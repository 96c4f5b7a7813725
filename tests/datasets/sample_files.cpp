#include "tests/datasets/sample_files.h"

#include <archive.h>
#include <archive_entry.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <random>

namespace bps::test {

std::vector<char> read_all(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const std::filesystem::path& file, const std::vector<char>& bytes) {
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<char> random_bytes(std::size_t count, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> byte(1, 255);
    std::vector<char> bytes(count);
    for (char& b : bytes) b = static_cast<char>(byte(generator));
    return bytes;
}

std::vector<std::uint8_t> random_pixels(std::size_t count, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> value(1, 255);
    std::vector<std::uint8_t> pixels(count);
    for (std::uint8_t& pixel : pixels) pixel = static_cast<std::uint8_t>(value(generator));
    return pixels;
}

std::string error_text(const std::filesystem::path& file, const std::string& problem) {
    std::string text = file.string();
    text += ": ";
    text += problem;
    return text;
}

void write_tar_gz(const std::filesystem::path& file, const ArchiveEntries& entries) {
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

}  // namespace bps::test
