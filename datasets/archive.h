#pragma once
// Unpacking a downloaded archive (CIFAR's .tar.gz) with libarchive.
#include <filesystem>
#include <functional>
#include <vector>

namespace bps::datasets {

// Extracts the regular files of `archive` into `folder`, keeping their relative paths, and
// returns them. Entries with absolute paths or ".." are refused (DatasetError naming the
// archive), as is a damaged or truncated archive. Each file is written as NAME.part and
// renamed when complete, so an interrupted extraction leaves no half file under its name.
std::vector<std::filesystem::path> extract_archive(const std::filesystem::path& archive,
                                                   const std::filesystem::path& folder);

}  // namespace bps::datasets
