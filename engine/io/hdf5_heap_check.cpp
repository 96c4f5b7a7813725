#include "engine/io/hdf5_heap_check.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

namespace bps::io::hdf5 {

namespace {

constexpr std::array<char, 8> kFileSignature{'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
constexpr std::array<char, 4> kHeapSignature{'G', 'C', 'O', 'L'};
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

std::uint64_t little_endian(const unsigned char* bytes, unsigned width) {
    std::uint64_t value = 0;
    for (unsigned i = width; i-- > 0;) value = (value << 8) | bytes[i];
    return value;
}

// The width of a "length" in the file (the collection and object sizes), from the superblock,
// which HDF5 looks for at byte 0, 512, 1024, 2048 and so on; nullopt when there is none.
std::optional<unsigned> length_width(std::ifstream& in, std::uint64_t file_size) {
    for (std::uint64_t at = 0; at + 16 <= file_size; at = at == 0 ? 512 : at * 2) {
        std::array<unsigned char, 16> head{};
        in.clear();
        in.seekg(static_cast<std::streamoff>(at));
        if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return std::nullopt;
        if (std::memcmp(head.data(), kFileSignature.data(), kFileSignature.size()) != 0) continue;
        // Superblock versions 0 and 1 keep the widths at bytes 13 and 14, versions 2 and 3 at 9 and 10.
        const unsigned width = head[8] <= 1 ? head[14] : head[10];
        if (width == 2 || width == 4 || width == 8) return width;
        return std::nullopt;
    }
    return std::nullopt;
}

// Walks a collection's objects as HDF5's decoder does.
std::optional<std::string> collection_damage(const std::vector<unsigned char>& collection, std::uint64_t at,
                                             unsigned width) {
    const std::uint64_t header = 8 + width;         // signature, version, reserved, size
    const std::uint64_t object_header = 8 + width;  // index, references, reserved, size
    const std::uint64_t end = collection.size();
    const std::string where = "its global heap at byte " + std::to_string(at) + " holds an object ";
    for (std::uint64_t p = header; p < end;) {
        if (p + object_header > end) break;  // too small for an object: free space, as HDF5 reads it
        const unsigned index = static_cast<unsigned>(little_endian(&collection[p], 2));
        const std::uint64_t size = little_endian(&collection[p + 8], width);
        const std::uint64_t left = end - p;
        // An object is its header and its data padded to 8 bytes; the free space (index 0) counts
        // its header in its size.
        if (index == 0 && size == 0) return where + "of size 0 at byte " + std::to_string(at + p);
        const bool fits =
            index == 0 ? size <= left : size <= left - object_header && object_header + (size + 7) / 8 * 8 <= left;
        if (!fits) return where + "at byte " + std::to_string(at + p) + " that runs past its end";
        p += index == 0 ? size : object_header + (size + 7) / 8 * 8;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> global_heap_damage(const std::filesystem::path& file) {
    std::error_code error;
    const std::uint64_t file_size = std::filesystem::file_size(file, error);
    if (error) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    const std::optional<unsigned> width = length_width(in, file_size);
    if (!width) return std::nullopt;

    // The signatures first, a chunk at a time (overlapping by a signature's length less one), so a
    // large weights file is never held whole; then each collection they start.
    std::vector<std::uint64_t> signatures;
    std::vector<char> chunk(kChunkBytes);
    for (std::uint64_t start = 0; start < file_size;) {
        in.clear();
        in.seekg(static_cast<std::streamoff>(start));
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got < kHeapSignature.size()) break;
        for (std::size_t i = 0; i + kHeapSignature.size() <= got; ++i) {
            if (std::memcmp(&chunk[i], kHeapSignature.data(), kHeapSignature.size()) == 0) {
                signatures.push_back(start + i);
            }
        }
        if (start + got >= file_size) break;
        start += got - (kHeapSignature.size() - 1);
    }

    for (const std::uint64_t at : signatures) {
        std::vector<unsigned char> header(8 + *width);
        in.clear();
        in.seekg(static_cast<std::streamoff>(at));
        if (!in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()))) continue;
        if (header[4] != 1) continue;  // the only collection version; HDF5 refuses others itself
        const std::uint64_t size = little_endian(&header[8], *width);
        // HDF5 refuses a collection it cannot read whole from the file, and finds no objects in
        // one too small for its own header.
        if (size < header.size() || size > file_size - at) continue;
        std::vector<unsigned char> collection(static_cast<std::size_t>(size));
        in.clear();
        in.seekg(static_cast<std::streamoff>(at));
        if (!in.read(reinterpret_cast<char*>(collection.data()), static_cast<std::streamsize>(size))) continue;
        if (std::optional<std::string> damage = collection_damage(collection, at, *width)) return damage;
    }
    return std::nullopt;
}

}  // namespace bps::io::hdf5
