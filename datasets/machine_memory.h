#pragma once
// How much memory the computer has, so that a dataset too large for it is refused with the
// figures before anything is allocated, instead of ending in std::bad_alloc or the kernel's
// out-of-memory killer halfway through reading.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace bps::datasets {

// The computer's physical memory in bytes; nullopt where it cannot be found (then nothing is
// refused ahead, and running out is reported when it happens).
std::optional<std::uint64_t> physical_memory_bytes();

// Throws DatasetError naming `file` when `needed_bytes` (for `what`, e.g. "its 60000 images as
// bytes and as numbers") is more than `physical_bytes`; nothing when physical_bytes is nullopt.
void check_fits_in_memory(const std::filesystem::path& file, std::uint64_t needed_bytes, const std::string& what,
                          std::optional<std::uint64_t> physical_bytes = physical_memory_bytes());

}  // namespace bps::datasets
