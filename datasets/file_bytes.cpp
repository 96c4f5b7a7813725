#include "datasets/file_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <string>

#include "datasets/dataset.h"

namespace bps::datasets {
namespace {

constexpr std::size_t kInputChunk = std::size_t{1} << 16;
constexpr std::size_t kOutputChunk = std::size_t{1} << 18;

std::string larger_than(std::uint64_t limit, bool inflated) {
    std::string problem = "is larger than ";
    problem += std::to_string(limit);
    problem += inflated ? " bytes after decompressing" : " bytes";
    return problem;
}

// Reads up to `size` bytes; returns how many arrived (fewer only at the end of the file).
std::size_t read_chunk(std::ifstream& stream, const std::filesystem::path& file, std::uint8_t* into, std::size_t size) {
    stream.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(size));
    if (stream.bad()) throw DatasetError(file, "cannot be read");
    return static_cast<std::size_t>(stream.gcount());
}

// Bytes the output may still grow by in one step: one past `limit` is allowed so that
// going over is noticed without ever holding more than limit + 1 bytes.
std::size_t output_room(std::size_t held, std::uint64_t limit) {
    const std::uint64_t room = limit - held;
    return room < kOutputChunk ? static_cast<std::size_t>(room) + 1 : kOutputChunk;
}

std::vector<std::uint8_t> read_plain(std::ifstream& stream, const std::filesystem::path& file, std::uint64_t limit) {
    std::vector<std::uint8_t> out;
    for (;;) {
        const std::size_t held = out.size();
        out.resize(held + output_room(held, limit));
        const std::size_t got = read_chunk(stream, file, out.data() + held, out.size() - held);
        out.resize(held + got);
        if (out.size() > limit) throw DatasetError(file, larger_than(limit, false));
        if (got == 0) return out;
    }
}

// Owns the zlib stream so every exit path releases it.
class Inflater {
public:
    explicit Inflater(const std::filesystem::path& file) {
        // 16 + MAX_WBITS: expect a gzip wrapper (header and CRC), not raw zlib.
        if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK)
            throw DatasetError(file, "cannot be decompressed (zlib did not start)");
    }
    ~Inflater() { inflateEnd(&stream_); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
    z_stream& stream() { return stream_; }

private:
    z_stream stream_{};
};

std::string damaged(const z_stream& stream) {
    std::string problem = "is a damaged gzip file (";
    problem += stream.msg != nullptr ? stream.msg : "zlib could not decompress it";
    problem += ")";
    return problem;
}

std::vector<std::uint8_t> read_gzip(std::ifstream& stream, const std::filesystem::path& file, std::uint64_t limit) {
    Inflater inflater(file);
    z_stream& z = inflater.stream();
    std::vector<std::uint8_t> input(kInputChunk);
    std::vector<std::uint8_t> out;
    bool input_ended = false;
    bool at_member_end = false;  // true between gzip members, where the file may legally end
    for (;;) {
        if (z.avail_in == 0 && !input_ended) {
            const std::size_t got = read_chunk(stream, file, input.data(), input.size());
            input_ended = got == 0;
            z.next_in = input.data();
            z.avail_in = static_cast<uInt>(got);
        }
        if (z.avail_in == 0 && input_ended) {
            if (at_member_end) return out;
            throw DatasetError(file, "the gzip data ends early (the file is truncated)");
        }
        const std::size_t held = out.size();
        out.resize(held + output_room(held, limit));
        z.next_out = out.data() + held;
        z.avail_out = static_cast<uInt>(out.size() - held);
        const int result = inflate(&z, Z_NO_FLUSH);
        out.resize(out.size() - z.avail_out);
        if (out.size() > limit) throw DatasetError(file, larger_than(limit, true));
        if (result == Z_STREAM_END) {
            // Several gzip members back to back form one file (as `cat a.gz b.gz` makes).
            at_member_end = true;
            if (inflateReset(&z) != Z_OK) throw DatasetError(file, damaged(z));
        } else if (result == Z_OK) {
            at_member_end = false;
        } else if (result != Z_BUF_ERROR) {
            // Z_BUF_ERROR only means no progress was possible yet: more input is read above.
            throw DatasetError(file, damaged(z));
        }
    }
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::uint64_t limit) {
    std::error_code error;
    if (!std::filesystem::exists(file, error)) throw DatasetError(file, "does not exist");
    if (std::filesystem::is_directory(file, error)) throw DatasetError(file, "is a folder, not a file");
    std::ifstream stream(file, std::ios::binary);
    if (!stream) throw DatasetError(file, "cannot be read");

    std::array<char, 2> magic{};
    stream.read(magic.data(), magic.size());
    if (stream.bad()) throw DatasetError(file, "cannot be read");
    const bool gzip = stream.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                      static_cast<unsigned char>(magic[1]) == 0x8b;
    stream.clear();
    stream.seekg(0);
    if (!stream) throw DatasetError(file, "cannot be read");
    return gzip ? read_gzip(stream, file, limit) : read_plain(stream, file, limit);
}

}  // namespace bps::datasets
