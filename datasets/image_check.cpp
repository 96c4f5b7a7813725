#include "datasets/image_check.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace bps::datasets {

namespace {

constexpr std::array<std::uint8_t, 8> kPngSignature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t kMostHuffmanCodes = 256;  // one per byte value; stb's arrays hold no more

bool starts_with(std::span<const std::uint8_t> bytes, std::span<const std::uint8_t> prefix) {
    return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

// stb reads zeros past the end of the data; so do these checks, to see what stb will see.
std::uint8_t byte_at(std::span<const std::uint8_t> bytes, std::size_t at) {
    return at < bytes.size() ? bytes[at] : 0;
}

// Which of the 4 DC and 4 AC Huffman tables a JPEG has defined so far (DC table i at i, AC at 4 + i).
using DefinedTables = std::array<bool, 8>;

// A DHT segment's tables, from `begin` (after the length) to `end` (as its length says): each is
// a class/index byte, 16 counts of codes per length, then that many symbols.
std::optional<std::string> huffman_refusal(std::span<const std::uint8_t> bytes, std::size_t begin, std::size_t end,
                                           DefinedTables& defined) {
    for (std::size_t at = begin; at < end;) {
        const std::uint8_t table = byte_at(bytes, at);
        if ((table >> 4) <= 1 && (table & 15) <= 3)
            defined[(table >> 4) * 4 + (table & 15)] = true;  // stb refuses others
        std::size_t codes = 0;
        for (std::size_t length = 1; length <= 16; ++length) codes += byte_at(bytes, at + length);
        if (codes > kMostHuffmanCodes)
            return "corrupt JPEG (a Huffman table of " + std::to_string(codes) + " codes; at most 256)";
        at += 17 + codes;
    }
    return std::nullopt;
}

// A scan header (after its length): its components, each with its DC and AC table, then the
// spectral selection. stb 2.27 decodes with a table that no DHT defined as if it were one, from
// memory it never set (and trips an assertion on it), so a scan must use defined tables only:
// baseline scans both of each component's; progressive ones the DC table in a first DC scan, the
// AC table in an AC scan.
std::optional<std::string> scan_refusal(std::span<const std::uint8_t> bytes, std::size_t at, bool progressive,
                                        const DefinedTables& defined) {
    const std::size_t components = byte_at(bytes, at);
    const std::size_t spectral_start = byte_at(bytes, at + 1 + 2 * components);
    const bool first_dc = (byte_at(bytes, at + 3 + 2 * components) >> 4) == 0;
    const bool uses_dc = !progressive || (spectral_start == 0 && first_dc);
    const bool uses_ac = !progressive || spectral_start > 0;
    for (std::size_t i = 0; i < components; ++i) {
        const std::uint8_t tables = byte_at(bytes, at + 2 + 2 * i);
        const std::size_t dc = tables >> 4, ac = tables & 15;
        if (dc > 3 || ac > 3) return std::nullopt;  // stb refuses the scan itself
        if ((uses_dc && !defined[dc]) || (uses_ac && !defined[4 + ac]))
            return std::string("corrupt JPEG (a scan uses a Huffman table that no DHT segment defines)");
    }
    return std::nullopt;
}

// The frame's size against its entropy-coded data. Every 8x8 block of the full-resolution
// component takes at least one bit (its DC code in the first scan; Huffman codes are 1 to 16
// bits, and stb decodes no arithmetic-coded JPEG). stb fills missing data with zeros and decodes
// the whole frame from it, so a few hundred bytes declaring 10248x1032 pixels kept it busy for
// seconds (found by fuzzing): such a file is cut short, and is refused before stb sees it.
std::optional<std::string> data_refusal(std::size_t width, std::size_t height, std::size_t scan_bytes) {
    if (width == 0 || height == 0) return std::nullopt;  // stb refuses the frame itself
    const std::size_t least_bits = ((width + 7) / 8) * ((height + 7) / 8);
    if (scan_bytes * 8 >= least_bits) return std::nullopt;
    return "corrupt JPEG (too little image data: a " + std::to_string(width) + "x" + std::to_string(height) +
           " image needs at least " + std::to_string((least_bits + 7) / 8) + " bytes of it, the file holds " +
           std::to_string(scan_bytes) + ")";
}

// Walks the JPEG's markers as stb does, and finds at least every marker stb finds: segments by
// their length, bytes between segments up to the next FF, and after a scan's header its
// entropy-coded data up to the next marker (FF followed by anything but 00, a restart or FF).
std::optional<std::string> jpeg_refusal(std::span<const std::uint8_t> bytes) {
    std::size_t at = 2;  // past the start-of-image marker
    bool in_scan = false;
    bool progressive = false;
    DefinedTables defined{};
    std::size_t width = 0, height = 0, scan_bytes = 0;
    while (at + 1 < bytes.size()) {
        const std::uint8_t next = bytes[at + 1];
        if (in_scan) {
            if (bytes[at] != 0xff) {
                ++scan_bytes;
                ++at;
                continue;
            }
            // As stb reads entropy-coded data: after an FF it skips any further FFs (fill bytes),
            // then 00 makes the FF one byte of data, a restart marker goes on with the scan, and
            // anything else is the next marker. (FF FF 00 is data: taking the first FF FF for the
            // scan's end lost step with stb, which then read a DHT segment this walk skipped.)
            std::size_t after = at + 1;
            while (after < bytes.size() && bytes[after] == 0xff) ++after;
            if (after >= bytes.size()) {
                at = after;
                break;
            }
            const std::uint8_t code = bytes[after];
            if (code == 0x00 || (code >= 0xd0 && code <= 0xd7)) {
                if (code == 0x00) ++scan_bytes;
                at = after + 1;
                continue;
            }
            in_scan = false;
            at = after - 1;  // the FF before the marker
            continue;
        }
        if (bytes[at] != 0xff) {  // stb scans past padding between segments to the next marker
            ++at;
            continue;
        }
        if (next == 0xff) {  // fill byte before a marker
            ++at;
            continue;
        }
        at += 2;
        if (next == 0xd9) return data_refusal(width, height, scan_bytes);              // end of image
        if (next == 0xd8 || next == 0x01 || (next >= 0xd0 && next <= 0xd7)) continue;  // no length
        const std::size_t length = (std::size_t{byte_at(bytes, at)} << 8) | byte_at(bytes, at + 1);
        if (length < 2) return std::nullopt;  // stb refuses the segment itself
        if (next == 0xc4) {
            if (auto refusal = huffman_refusal(bytes, at + 2, at + length, defined)) return refusal;
        }
        if (next == 0xc2) progressive = true;
        if (next >= 0xc0 && next <= 0xc2) {  // a frame stb decodes: precision, height, width, ...
            height = (std::size_t{byte_at(bytes, at + 3)} << 8) | byte_at(bytes, at + 4);
            width = (std::size_t{byte_at(bytes, at + 5)} << 8) | byte_at(bytes, at + 6);
        }
        if (next == 0xda) {
            if (auto refusal = scan_refusal(bytes, at + 2, progressive, defined)) return refusal;
        }
        at += length;
        in_scan = next == 0xda;
    }
    if (in_scan) scan_bytes += bytes.size() - std::min(at, bytes.size());  // a last byte the loop left
    return data_refusal(width, height, scan_bytes);
}

// PNG chunks: a 4-byte big-endian length, a 4-byte type, the data, a 4-byte CRC (stb skips it).
// Drops empty IDAT chunks; refuses an IDAT chunk longer than the rest of the file, for which stb
// 2.27 grows its buffer (up to 2 GiB) before it finds the data missing.
std::optional<std::string> png_refusal(std::vector<std::uint8_t>& bytes) {
    constexpr std::size_t kHeader = 8, kCrc = 4;
    constexpr std::array<std::uint8_t, 4> kData{'I', 'D', 'A', 'T'};
    std::size_t at = kPngSignature.size();
    while (at + kHeader <= bytes.size()) {
        const std::size_t length = (std::size_t{bytes[at]} << 24) | (std::size_t{bytes[at + 1]} << 16) |
                                   (std::size_t{bytes[at + 2]} << 8) | bytes[at + 3];
        const auto chunk = bytes.begin() + static_cast<std::ptrdiff_t>(at);
        const bool image_data = std::equal(kData.begin(), kData.end(), chunk + 4);
        const std::size_t left = bytes.size() - at - kHeader;
        if (length == 0 && image_data) {  // also one whose CRC the file cuts short
            bytes.erase(chunk, chunk + static_cast<std::ptrdiff_t>(std::min(kHeader + kCrc, kHeader + left)));
            continue;
        }
        if (length > left) {
            // Only image data is gathered into a buffer; stb skips other chunks, or says itself
            // what is wrong with them.
            if (!image_data) return std::nullopt;
            return "corrupt PNG (an image data chunk of " + std::to_string(length) + " bytes where the file has " +
                   std::to_string(left) + " left)";
        }
        at += kHeader + length + kCrc;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> prepare_image_bytes(std::vector<std::uint8_t>& bytes) {
    if (starts_with(bytes, kPngSignature)) return png_refusal(bytes);
    constexpr std::array<std::uint8_t, 3> jpeg_start{0xff, 0xd8, 0xff};
    if (starts_with(bytes, jpeg_start)) return jpeg_refusal(bytes);
    return "unknown image type";  // as stb says it; other formats are not what a learner's folder holds
}

}  // namespace bps::datasets
