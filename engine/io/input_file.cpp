#include "engine/io/input_file.h"

namespace bps::io {

namespace {

// Descriptors are named by path only on systems that have them; elsewhere no path starts so.
bool names_open_descriptor(const std::filesystem::path& file) {
    const std::string text = file.generic_string();
    return text.starts_with("/dev/fd/") || text.starts_with("/proc/self/fd/") || text == "/dev/stdin";
}

}  // namespace

InputKind input_kind(const std::filesystem::path& file) {
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(file, error);
    if (!std::filesystem::exists(status)) return InputKind::missing;
    if (std::filesystem::is_regular_file(status)) return InputKind::regular;
    if (std::filesystem::is_directory(status)) return InputKind::folder;
    if (std::filesystem::is_fifo(status) && names_open_descriptor(file)) return InputKind::open_pipe;
    return InputKind::special;
}

}  // namespace bps::io
