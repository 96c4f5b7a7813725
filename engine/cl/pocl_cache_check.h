#pragma once
// PoCL keeps each kernel it compiled as a shared library in its cache folder (POCL_CACHE_DIR, or
// ~/.cache/pocl/kcache: XX/HASH/KERNEL/SIZES/KERNEL.so) and loads it unchecked: a library cut short (a full disk, a
// copy interrupted, a damaged file system) makes dlopen fail, and PoCL then aborts the process. The first run after
// such damage would die before the crash guard (device_use_mark.h) could help. So its libraries are checked before PoCL
// is used, as far as their ELF headers tell.
#include <filesystem>
#include <vector>

namespace bps::cl {

// What in `folder` is PoCL's own: its two-letter folders ("AB": its hashes are written with the
// letters A to P), its "tempfile_..." files, and a "kcache" folder (~/.cache/pocl's layout). In a
// folder the user chose, only these may be deleted.
std::vector<std::filesystem::path> pocl_cache_entries(const std::filesystem::path& folder);

// Removes every kernel library under pocl_cache_entries(pocl_cache) that is not a whole ELF file: one whose
// header, program headers, section headers or loaded segments lie past its end. PoCL builds a
// missing one anew. Returns the files removed. Files that are not ELF at all are judged only where
// PoCL writes ELF (not on Windows or macOS). Never throws.
std::vector<std::filesystem::path> remove_damaged_pocl_libraries(const std::filesystem::path& pocl_cache);

// Whether the file is a whole ELF file as above (exposed for tests).
bool is_whole_elf_file(const std::filesystem::path& file);

}  // namespace bps::cl
