#pragma once
// Whole-file reads for the binary dataset formats, with transparent gzip (zlib).
#include <cstdint>
#include <filesystem>
#include <vector>

namespace bps::datasets {

// Reads `file`; when it starts with the gzip magic (1f 8b) it is inflated, whatever its name.
// The buffer grows only as real data arrives, so a damaged header cannot make it allocate
// more than the data holds; more than `limit` bytes (after inflating) is refused.
// Throws DatasetError naming the file: missing, unreadable, damaged or truncated gzip, too large.
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file,
                                          std::uint64_t limit = std::uint64_t{4} << 30);

}  // namespace bps::datasets
