#pragma once
// The readers under fuzzing take a path, not bytes, as the program uses them: each input is
// written to a file in one scratch folder per fuzzing process (several may run at once), and
// the folder is removed when the process exits normally.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace bps::fuzz {

class ScratchFolder {
public:
    ScratchFolder() : path_(std::filesystem::temp_directory_path() / ("backprop-fuzz-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline const std::filesystem::path& scratch_folder() {
    static const ScratchFolder folder;
    return folder.path();
}

// Writes exactly `size` bytes as `file` (truncating what an earlier input left there).
inline void write_bytes(const std::filesystem::path& file, const std::uint8_t* data, std::size_t size) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// The input as a file named `name` in the scratch folder.
inline std::filesystem::path scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
    std::filesystem::path file = scratch_folder() / name;
    write_bytes(file, data, size);
    return file;
}

}  // namespace bps::fuzz
