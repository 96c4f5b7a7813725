// What reaches stb_image: only PNG and JPEG; a JPEG Huffman table of more than 256 codes is
// refused (stb 2.27 writes past its arrays); a PNG's empty IDAT chunks are dropped (stb 2.27
// copies from a null pointer for one). Found by tests/fuzz/fuzz_image_decoder.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <random>

#include "datasets/image_check.h"
#include "datasets/image_folder.h"
#include "tests/support/files.h"
#include "tests/support/image_writer.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using Bytes = std::vector<std::uint8_t>;

namespace {

using bps::test::read_bytes;

void append(Bytes& bytes, std::initializer_list<int> values) {
    for (const int value : values) bytes.push_back(static_cast<std::uint8_t>(value));
}

void append_png_chunk(Bytes& bytes, const char* type, const Bytes& data) {
    const auto length = static_cast<std::uint32_t>(data.size());
    append(bytes, {static_cast<int>(length >> 24), static_cast<int>((length >> 16) & 0xff),
                   static_cast<int>((length >> 8) & 0xff), static_cast<int>(length & 0xff)});
    bytes.insert(bytes.end(), type, type + 4);
    bytes.insert(bytes.end(), data.begin(), data.end());
    append(bytes, {0, 0, 0, 0});  // CRC: stb does not check it
}

}  // namespace

TEST_CASE("a JPEG Huffman table of more than 256 codes is refused before stb sees it", "[image_folder]") {
    Bytes jpeg;
    append(jpeg, {0xff, 0xd8, 0xff, 0xc4, 0x00, 0x13, 0x00});          // a DHT segment of 19 bytes: one table
    append(jpeg, {0, 0, 0, 0, 0, 0, 0, 255, 2, 0, 0, 0, 0, 0, 0, 0});  // 257 codes
    REQUIRE(datasets::prepare_image_bytes(jpeg) == "corrupt JPEG (a Huffman table of 257 codes; at most 256)");

    test::TempDir dir("image-check-huffman");
    std::ofstream(dir.path() / "bad.jpg", std::ios::binary)
        .write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size()));
    REQUIRE_THROWS_WITH(datasets::read_image_file(dir.path() / "bad.jpg", {3, 4, 1}),
                        Catch::Contains("bad.jpg") && Catch::Contains("cannot be decoded: corrupt JPEG"));
}

TEST_CASE("a DHT segment after FF FF 00 in a scan's data is checked, as stb reads it", "[image_folder]") {
    // stb skips fill bytes after an FF inside a scan, so FF FF 00 is one data byte and the scan
    // goes on to the DHT marker after it, whose table of 1,662 codes stb 2.27 would write past its
    // arrays (found by CI's fuzzing). The walk once took the FF FF for the end of the scan.
    Bytes jpeg;
    append(jpeg, {0xff, 0xd8, 0xff, 0xc4, 0x00, 0x26, 0x00});                 // DHT: DC table 0,
    append(jpeg, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5});        // one code of 2 bits;
    append(jpeg, {0x10, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5});  // AC table 0, the same
    append(jpeg, {0xff, 0xc0, 0x00, 0x0b, 8, 0, 8, 0, 8, 1, 1, 0x11, 0});
    append(jpeg, {0xff, 0xda, 0x00, 0x08, 1, 1, 0x00, 0, 63, 0});  // a scan, then its data:
    append(jpeg, {0x12, 0xff, 0xff, 0x00, 0x34});                  // FF FF 00 is data
    append(jpeg, {0xff, 0xc4, 0x00, 0x13, 0x11});                  // a DHT: AC table 1
    append(jpeg, {0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 2, 0});
    REQUIRE(datasets::prepare_image_bytes(jpeg) == "corrupt JPEG (a Huffman table of 1787 codes; at most 256)");

    // The same with FF FF D0 (fill bytes before a restart marker): the scan goes on as well.
    REQUIRE(jpeg[jpeg.size() - 23] == 0x00);
    jpeg[jpeg.size() - 23] = 0xd0;
    CHECK(datasets::prepare_image_bytes(jpeg) == "corrupt JPEG (a Huffman table of 1787 codes; at most 256)");
}

TEST_CASE("a PNG's empty IDAT chunks are dropped and nothing else changes", "[image_folder]") {
    test::TempDir dir("image-check-png");
    test::write_test_png(dir.path() / "a.png", 4, 3, 1, Bytes(12, 128));
    const Bytes png = read_bytes(dir.path() / "a.png");
    Bytes same = png;
    REQUIRE_FALSE(datasets::prepare_image_bytes(same));
    CHECK(same == png);

    // The written file's chunks again, with an empty IDAT before its data.
    Bytes with_empty(png.begin(), png.begin() + 8 + 25);  // signature and IHDR
    append_png_chunk(with_empty, "IDAT", {});
    with_empty.insert(with_empty.end(), png.begin() + 8 + 25, png.end());
    REQUIRE(with_empty.size() == png.size() + 12);
    REQUIRE_FALSE(datasets::prepare_image_bytes(with_empty));
    CHECK(with_empty == png);

    // Found by fuzzing in CI: an empty IDAT at the end whose CRC the file cuts short is dropped too.
    Bytes cut_short(png.begin(), png.begin() + 8 + 25);
    append(cut_short, {0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x00, 0x82});
    REQUIRE_FALSE(datasets::prepare_image_bytes(cut_short));
    CHECK(cut_short == Bytes(png.begin(), png.begin() + 8 + 25));
}

TEST_CASE("a PNG image data chunk longer than the rest of the file is refused before stb sees it", "[image_folder]") {
    // Found by fuzzing: stb 2.27 grows its buffer for the chunk (to 2 GiB here) before it finds the
    // data missing.
    test::TempDir dir("image-check-png-long");
    test::write_test_png(dir.path() / "a.png", 4, 3, 1, Bytes(12, 128));
    const Bytes png = read_bytes(dir.path() / "a.png");
    Bytes long_chunk(png.begin(), png.begin() + 8 + 25);  // signature and IHDR
    append(long_chunk, {0x7f, 0xff, 0xff, 0xf0, 'I', 'D', 'A', 'T', 1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(datasets::prepare_image_bytes(long_chunk) ==
          "corrupt PNG (an image data chunk of 2147483632 bytes where the file has 8 left)");
    // A file cut short in its image data is refused the same way.
    Bytes cut(png.begin(), png.end() - 20);
    CHECK_THAT(datasets::prepare_image_bytes(cut).value_or(""),
               Catch::StartsWith("corrupt PNG (an image data chunk of "));
}

TEST_CASE("a JPEG written by stb passes unchanged, and other formats are an unknown image type", "[image_folder]") {
    test::TempDir dir("image-check-jpeg");
    test::write_test_jpg(dir.path() / "a.jpg", 4, 3, 3, Bytes(36, 200));
    Bytes jpeg = read_bytes(dir.path() / "a.jpg");
    const Bytes original = jpeg;
    CHECK_FALSE(datasets::prepare_image_bytes(jpeg));
    CHECK(jpeg == original);

    const std::string gif = "GIF89a\x04\x00\x03\x00";
    Bytes bytes(gif.begin(), gif.end());
    CHECK(datasets::prepare_image_bytes(bytes) == "unknown image type");
    Bytes empty;
    CHECK(datasets::prepare_image_bytes(empty) == "unknown image type");
}

TEST_CASE("a JPEG scan that uses a Huffman table no DHT segment defines is refused before stb sees it",
          "[image_folder]") {
    // SOI, a DHT with DC table 0 only, a baseline frame of one component, a scan using DC table 0
    // and AC table 0: stb 2.27 would decode with AC table 0 from memory never set.
    const auto jpeg_with = [](int frame_marker, std::initializer_list<int> scan_end) {
        Bytes jpeg;
        append(jpeg, {0xff, 0xd8, 0xff, 0xc4, 0x00, 0x14, 0x00});           // DHT: DC table 0
        append(jpeg, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5});  // one code of 2 bits
        append(jpeg, {0xff, frame_marker, 0x00, 0x0b, 8, 0, 8, 0, 8, 1, 1, 0x11, 0});
        append(jpeg, {0xff, 0xda, 0x00, 0x08, 1, 1, 0x00});  // one component: DC table 0, AC table 0
        append(jpeg, scan_end);
        append(jpeg, {0x00, 0xff, 0xd9});
        return jpeg;
    };
    Bytes baseline = jpeg_with(0xc0, {0, 63, 0});
    CHECK(datasets::prepare_image_bytes(baseline) ==
          "corrupt JPEG (a scan uses a Huffman table that no DHT segment defines)");
    // A progressive JPEG's first DC scan uses only its DC table, and an AC scan only its AC table.
    Bytes dc_scan = jpeg_with(0xc2, {0, 0, 0});
    CHECK_FALSE(datasets::prepare_image_bytes(dc_scan));
    Bytes ac_scan = jpeg_with(0xc2, {1, 5, 0});
    CHECK(datasets::prepare_image_bytes(ac_scan) ==
          "corrupt JPEG (a scan uses a Huffman table that no DHT segment defines)");
}

TEST_CASE("a JPEG with too little image data for its size is refused before stb decodes zeros for seconds",
          "[image_folder]") {
    // A whole JPEG of one flat colour, the least data per block stb's writer makes, passes.
    test::TempDir dir("image-check-jpeg-size");
    test::write_test_jpg(dir.path() / "flat.jpg", 512, 512, 3, Bytes(512 * 512 * 3, 90));
    Bytes flat = read_bytes(dir.path() / "flat.jpg");
    CHECK_FALSE(datasets::prepare_image_bytes(flat));

    // The same file declaring 1032x10248 pixels: 1281 x 129 blocks need at least 165249 bits.
    // (Found by fuzzing: 678 bytes that kept stb busy for 22 s under the sanitizers.)
    std::size_t frame = 0;
    while (frame + 1 < flat.size() && !(flat[frame] == 0xff && flat[frame + 1] == 0xc0)) ++frame;
    REQUIRE(frame + 9 < flat.size());
    Bytes huge = flat;
    huge[frame + 5] = 0x28, huge[frame + 6] = 0x08;  // height 10248
    huge[frame + 7] = 0x04, huge[frame + 8] = 0x08;  // width 1032
    std::size_t scan_bytes = 0;
    {
        // The entropy-coded bytes, as a decoder reads them: after the scan header, to the end marker.
        std::size_t at = 0;
        while (!(flat[at] == 0xff && flat[at + 1] == 0xda)) ++at;
        at += 2 + ((std::size_t{flat[at + 2]} << 8) | flat[at + 3]);
        for (; !(flat[at] == 0xff && flat[at + 1] == 0xd9); ++at)
            if (!(flat[at] == 0x00 && flat[at - 1] == 0xff)) ++scan_bytes;
    }
    REQUIRE(scan_bytes * 8 < 165249);
    CHECK(datasets::prepare_image_bytes(huge) ==
          "corrupt JPEG (too little image data: a 1032x10248 image needs at least 20657 bytes of it, the file "
          "holds " +
              std::to_string(scan_bytes) + ")");

    // A real photo-sized file cut short keeps its header and loses most of its data.
    std::mt19937 generator(7);
    Bytes noise(640 * 480 * 3);
    for (std::uint8_t& value : noise) value = static_cast<std::uint8_t>(generator() & 0xff);
    test::write_test_jpg(dir.path() / "noise.jpg", 640, 480, 3, noise);
    Bytes whole = read_bytes(dir.path() / "noise.jpg");
    CHECK_FALSE(datasets::prepare_image_bytes(whole));
    Bytes cut(whole.begin(), whole.begin() + 900);
    const std::optional<std::string> refusal = datasets::prepare_image_bytes(cut);
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::StartsWith("corrupt JPEG (too little image data: a 640x480 image needs at least "
                                           "600 bytes of it, the file holds "));
}
