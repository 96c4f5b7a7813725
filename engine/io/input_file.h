#pragma once
// What kind of file a path given to read names, found without opening it. Opening a FIFO blocks
// until some other program writes to it, and a device may never end, so those are refused before
// any open, as image folders skip them. A pipe that the shell has already opened (process
// substitution's `<(cat p.json)`, which names /dev/fd/N) opens at once and can be read, once, from
// its start: a reader takes its bytes in one pass and never seeks.
#include <filesystem>
#include <string>

namespace bps::io {

enum class InputKind {
    missing,    // nothing there (or it cannot be looked at)
    regular,    // a file on disk
    folder,     // a directory
    open_pipe,  // a descriptor this process inherited: /dev/fd/N, /proc/self/fd/N, /dev/stdin
    special,    // a FIFO, a device or a socket
};

InputKind input_kind(const std::filesystem::path& file);

// The words after "FILE: " for a special file.
inline constexpr const char* special_file_problem =
    "is not a regular file (a named pipe, a device or a socket), which may never end or never open; save "
    "it to a file and give that file";

}  // namespace bps::io
