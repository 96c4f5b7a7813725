#include "engine/cl/pocl_cache_check.h"

#include <array>
#include <cstdint>
#include <fstream>

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

// Reads `bytes` bytes at `offset` as an unsigned number of the file's byte order.
std::uint64_t number(const std::vector<unsigned char>& data, std::size_t offset, std::size_t bytes,
                     bool little_endian) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
        const unsigned char byte = data[offset + (little_endian ? bytes - 1 - i : i)];
        value = (value << 8) | byte;
    }
    return value;
}

bool read_at(std::ifstream& in, std::uint64_t offset, std::size_t bytes, std::vector<unsigned char>& data) {
    data.assign(bytes, 0);
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
    return in.gcount() == static_cast<std::streamsize>(bytes);
}

#if defined(_WIN32) || defined(__APPLE__)
bool starts_as_elf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::array<char, 4> magic{};
    in.read(magic.data(), magic.size());
    return in.gcount() == 4 && magic == std::array<char, 4>{0x7f, 'E', 'L', 'F'};
}
#endif

}  // namespace

bool is_whole_elf_file(const fs::path& file) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(file, error);
    if (error) return false;
    std::ifstream in(file, std::ios::binary);
    std::vector<unsigned char> header;
    if (!read_at(in, 0, 52, header)) return false;
    if (header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F') return false;
    const bool wide = header[4] == 2;  // ELFCLASS64
    const bool little = header[5] == 1;
    if ((header[4] != 1 && !wide) || (header[5] != 1 && header[5] != 2)) return false;
    if (wide && !read_at(in, 0, 64, header)) return false;
    const std::size_t word = wide ? 8 : 4;
    const std::uint64_t program_offset = number(header, wide ? 32 : 28, word, little);
    const std::uint64_t section_offset = number(header, wide ? 40 : 32, word, little);
    const std::size_t tail = wide ? 54 : 42;  // e_phentsize, e_phnum, e_shentsize, e_shnum follow
    const std::uint64_t program_entry = number(header, tail, 2, little);
    const std::uint64_t programs = number(header, tail + 2, 2, little);
    const std::uint64_t section_entry = number(header, tail + 4, 2, little);
    const std::uint64_t sections = number(header, tail + 6, 2, little);
    const auto within = [&](std::uint64_t offset, std::uint64_t bytes) {
        return offset <= size && bytes <= size - offset;
    };
    if (programs > 0 && !within(program_offset, program_entry * programs)) return false;
    if (sections > 0 && !within(section_offset, section_entry * sections)) return false;
    // Every segment the loader maps must be there in full.
    std::vector<unsigned char> entry;
    for (std::uint64_t i = 0; i < programs; ++i) {
        if (program_entry < (wide ? 56u : 32u) ||
            !read_at(in, program_offset + i * program_entry, program_entry, entry))
            return false;
        const std::uint64_t file_offset = number(entry, wide ? 8 : 4, word, little);
        const std::uint64_t file_bytes = number(entry, wide ? 32 : 16, word, little);
        if (!within(file_offset, file_bytes)) return false;
    }
    return true;
}

std::vector<fs::path> pocl_cache_entries(const fs::path& folder) {
    std::vector<fs::path> entries;
    std::error_code error;
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
        const std::string name = entry->path().filename().string();
        std::error_code ignored;
        const bool directory = entry->is_directory(ignored);
        const bool hash_folder =
            directory && name.size() == 2 && name[0] >= 'A' && name[0] <= 'P' && name[1] >= 'A' && name[1] <= 'P';
        const bool temporary = !directory && name.rfind("tempfile_", 0) == 0;
        if (hash_folder || temporary || (directory && name == "kcache")) entries.push_back(entry->path());
    }
    return entries;
}

std::vector<fs::path> remove_damaged_pocl_libraries(const fs::path& pocl_cache) {
    std::vector<fs::path> removed;
    for (const fs::path& top : pocl_cache_entries(pocl_cache)) {
        std::error_code error;
        for (fs::recursive_directory_iterator entry(top, error), end; !error && entry != end; entry.increment(error)) {
            std::error_code ignored;
            if (entry->path().extension() != ".so" || !entry->is_regular_file(ignored)) continue;
#if defined(_WIN32) || defined(__APPLE__)
            // There PoCL's libraries are no ELF files: only an ELF one can be judged.
            if (!starts_as_elf(entry->path())) continue;
#endif
            if (is_whole_elf_file(entry->path())) continue;
            if (fs::remove(entry->path(), ignored)) removed.push_back(entry->path());
        }
    }
    return removed;
}

}  // namespace bps::cl
