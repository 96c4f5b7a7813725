#pragma once
// Files the dataset tests write as inputs and read back as results.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bps::test {

std::vector<char> read_all(const std::filesystem::path& file);
void write_all(const std::filesystem::path& file, const std::vector<char>& bytes);
// Bytes in 1..255 (never zero, so a zero-filled result cannot pass), fixed by `seed`.
std::vector<char> random_bytes(std::size_t count, unsigned seed);
// Pixel values in 1..255, never zero, so a pixel left unwritten cannot pass for one read.
std::vector<std::uint8_t> random_pixels(std::size_t count, std::uint32_t seed);

// The text a DatasetError about `file` carries: "FILE: problem", spelled out here on its own
// so the tests do not take the format from the code under test.
std::string error_text(const std::filesystem::path& file, const std::string& problem);

// (path inside the archive, content)
using ArchiveEntries = std::vector<std::pair<std::string, std::vector<char>>>;
// A .tar.gz written with libarchive's writer, independent of the reader under test.
void write_tar_gz(const std::filesystem::path& file, const ArchiveEntries& entries);

}  // namespace bps::test
