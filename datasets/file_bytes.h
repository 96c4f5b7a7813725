#pragma once
// Whole-file reads for the binary dataset formats, with transparent gzip (zlib).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

namespace bps::datasets {

// Reads `file`; when it starts with the gzip magic (1f 8b) it is inflated, whatever its name.
// The buffer grows only as real data arrives, so a damaged header cannot make it allocate
// more than the data holds; more than `limit` bytes (after inflating) is refused.
// Throws DatasetError naming the file: missing, unreadable, damaged or truncated gzip, too large.
inline constexpr std::uint64_t max_file_bytes = std::uint64_t{4} << 30;
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::uint64_t limit = max_file_bytes);

// The most bytes a whole file may hold, judged from its first bytes (a header). It may throw
// DatasetError to refuse the file at once.
using HeaderLimit = std::function<std::uint64_t(std::span<const std::uint8_t> first_bytes)>;

// As above, and once the first `header_bytes` have arrived (after inflating; or at the end of a
// shorter file) `limit_of` may lower the limit: a gzip bomb stops at what its header describes,
// and that much memory is reserved once ("needs N MiB of memory ..." when it cannot be had).
// Past a limit from the header: "holds more than N bytes its header describes".
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::size_t header_bytes,
                                          const HeaderLimit& limit_of, std::uint64_t limit = max_file_bytes);

}  // namespace bps::datasets
