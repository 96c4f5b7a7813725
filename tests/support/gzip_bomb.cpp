#include "tests/support/gzip_bomb.h"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace bps::test {

std::vector<std::uint8_t> gzip_bomb(const std::vector<std::uint8_t>& header, std::size_t zeros) {
    z_stream stream{};
    if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib's deflate did not start");
    std::vector<std::uint8_t> out;
    std::vector<std::uint8_t> piece(std::size_t{1} << 20);
    const std::vector<std::uint8_t> chunk_of_zeros(std::size_t{1} << 20, 0);
    auto feed = [&](const std::uint8_t* data, std::size_t size, int flush) {
        stream.next_in = const_cast<Bytef*>(data);
        stream.avail_in = static_cast<uInt>(size);
        do {
            stream.next_out = piece.data();
            stream.avail_out = static_cast<uInt>(piece.size());
            if (deflate(&stream, flush) == Z_STREAM_ERROR) throw std::runtime_error("zlib's deflate failed");
            out.insert(out.end(), piece.data(), piece.data() + (piece.size() - stream.avail_out));
        } while (stream.avail_out == 0);
    };
    feed(header.data(), header.size(), Z_NO_FLUSH);
    for (std::size_t left = zeros; left > 0;) {
        const std::size_t size = std::min(left, chunk_of_zeros.size());
        feed(chunk_of_zeros.data(), size, Z_NO_FLUSH);
        left -= size;
    }
    feed(nullptr, 0, Z_FINISH);
    deflateEnd(&stream);
    return out;
}

}  // namespace bps::test
