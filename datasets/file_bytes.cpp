#include "datasets/file_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <new>
#include <string>
#include <system_error>
#include <utility>

#include "datasets/dataset.h"

namespace bps::datasets {
namespace {

constexpr std::size_t kInputChunk = std::size_t{1} << 16;
constexpr std::size_t kOutputChunk = std::size_t{1} << 18;
// Deflate never inflates one byte to more than 1032 (zlib's FAQ): what a gzip file can hold.
constexpr std::uint64_t kMostInflatedPerByte = 1032;

// The most bytes `file` can give, judged by its size on disk: its size when plain, 1032 times it
// when gzip. `fallback` when the size is unknown (not a regular file) or the product overflows.
std::uint64_t most_bytes_held(const std::filesystem::path& file, bool gzip, std::uint64_t fallback) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error)) return fallback;
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (error) return fallback;
    if (!gzip) return size;
    return size > fallback / kMostInflatedPerByte ? fallback : size * kMostInflatedPerByte;
}

// The output of a read: it never holds more than the limit + 1 bytes, and once the first
// `header_bytes` have arrived the header may lower the limit (and the memory is reserved once).
class BoundedOutput {
public:
    // `held` bounds what the file can hold (most_bytes_held): the memory reserved for a header's
    // promise is never more, so a few damaged bytes cannot make us reserve gigabytes.
    BoundedOutput(const std::filesystem::path& file, std::uint64_t limit, bool inflated, std::size_t header_bytes,
                  const HeaderLimit* limit_of, std::uint64_t held)
        : file_(file),
          limit_(limit),
          inflated_(inflated),
          header_bytes_(header_bytes),
          limit_of_(limit_of),
          held_(held) {}

    // Grows the buffer by what the next read may add; returns where it goes, and its size.
    std::pair<std::uint8_t*, std::size_t> room() {
        const std::size_t held = bytes_.size();
        // One past the limit is allowed, so going over is noticed.
        const std::uint64_t left = limit_ - held;
        const std::size_t size = left < kOutputChunk ? static_cast<std::size_t>(left) + 1 : kOutputChunk;
        bytes_.resize(held + size);
        return {bytes_.data() + held, size};
    }

    // Keeps `used` of the room() just given, then checks the limit (asking the header once it is in).
    void keep(std::size_t used, std::size_t offered) {
        bytes_.resize(bytes_.size() - offered + used);
        if (limit_of_ && !asked_ && bytes_.size() >= header_bytes_) ask_header(header_bytes_);
        if (bytes_.size() > limit_) throw DatasetError(file_, larger_than());
    }

    std::vector<std::uint8_t> finish() {
        if (limit_of_ && !asked_) ask_header(bytes_.size());  // a file shorter than a header
        return std::move(bytes_);
    }

private:
    void ask_header(std::size_t size) {
        asked_ = true;
        const std::uint64_t most = (*limit_of_)(std::span<const std::uint8_t>(bytes_.data(), size));
        if (most < limit_) {
            limit_ = most;
            from_header_ = true;
        }
        // Reserved even when the header promises as much as the limit allows: growing by doubling
        // towards 4 GiB once took twice the data in memory, and copied it.
        const std::uint64_t wanted = std::min(limit_, held_);
        try {
            bytes_.reserve(static_cast<std::size_t>(wanted) + 1);
        } catch (const std::bad_alloc&) {
            throw DatasetError(file_, "needs " + std::to_string(wanted >> 20) +
                                          " MiB of memory to read, more than this computer can give now");
        }
    }

    std::string larger_than() const {
        std::string problem = from_header_ ? "holds more than the " : "is larger than ";
        problem += std::to_string(limit_);
        problem += from_header_ ? " bytes its header describes" : " bytes";
        if (inflated_) problem += " after decompressing";
        return problem;
    }

    const std::filesystem::path& file_;
    std::uint64_t limit_;
    bool inflated_;
    std::size_t header_bytes_;
    const HeaderLimit* limit_of_;
    std::uint64_t held_;
    bool asked_ = false, from_header_ = false;
    std::vector<std::uint8_t> bytes_;
};

// Reads up to `size` bytes; returns how many arrived (fewer only at the end of the file).
std::size_t read_chunk(std::ifstream& stream, const std::filesystem::path& file, std::uint8_t* into, std::size_t size) {
    stream.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(size));
    if (stream.bad()) throw DatasetError(file, "cannot be read");
    return static_cast<std::size_t>(stream.gcount());
}

void read_plain(std::ifstream& stream, const std::filesystem::path& file, BoundedOutput& out) {
    for (;;) {
        const auto [into, size] = out.room();
        const std::size_t got = read_chunk(stream, file, into, size);
        out.keep(got, size);
        if (got == 0) return;
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

void read_gzip(std::ifstream& stream, const std::filesystem::path& file, BoundedOutput& out) {
    Inflater inflater(file);
    z_stream& z = inflater.stream();
    std::vector<std::uint8_t> input(kInputChunk);
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
            if (at_member_end) return;
            throw DatasetError(file, "the gzip data ends early (the file is truncated)");
        }
        const auto [into, size] = out.room();
        z.next_out = into;
        z.avail_out = static_cast<uInt>(size);
        const int result = inflate(&z, Z_NO_FLUSH);
        out.keep(size - z.avail_out, size);
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

std::vector<std::uint8_t> read_bounded(const std::filesystem::path& file, std::uint64_t limit, std::size_t header_bytes,
                                       const HeaderLimit* limit_of) {
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
    BoundedOutput out(file, limit, gzip, header_bytes, limit_of, most_bytes_held(file, gzip, limit));
    if (gzip)
        read_gzip(stream, file, out);
    else
        read_plain(stream, file, out);
    return out.finish();
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::uint64_t limit) {
    return read_bounded(file, limit, 0, nullptr);
}

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::size_t header_bytes,
                                          const HeaderLimit& limit_of, std::uint64_t limit) {
    return read_bounded(file, limit, header_bytes, &limit_of);
}

}  // namespace bps::datasets
