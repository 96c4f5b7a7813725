#pragma once
// Whether two paths name one file, so that no output replaces an input or earlier good work: the
// command line's file checks (app/cli/file_clashes.h) and the studio's exports share it.
#include <filesystem>

namespace bps::io {

// The same file on disk (links included), or, for a file not written yet, the same path once made
// absolute and normal.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace bps::io
