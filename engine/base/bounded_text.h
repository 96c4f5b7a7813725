#pragma once
// Reading a small text file (a project, a run receipt) with a size cap, so that a wrong path
// (/dev/zero, a dataset, a disk image) is refused after `max_bytes` instead of filling memory.
#include <cstdint>
#include <filesystem>
#include <string>

namespace bps::io {

enum class TextRead { read, unreadable, too_large };

struct BoundedText {
    TextRead outcome = TextRead::read;
    std::string text;  // the whole file when outcome is read
};

// Reads at most max_bytes of `file`; a file with more (or an endless device) is too_large, one
// that cannot be opened or read is unreadable. Works on any file, regular or not.
BoundedText read_bounded_text(const std::filesystem::path& file, std::uint64_t max_bytes);

// "16 MiB": the cap in the words a message shows.
std::string size_cap_words(std::uint64_t max_bytes);

}  // namespace bps::io
