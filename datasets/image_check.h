#pragma once
// Checks on an image file's bytes before stb_image sees them, for what the stb that Debian ships
// (2.27) gets wrong; each was found by tests/fuzz/fuzz_image_decoder under the sanitizers:
// - a JPEG Huffman table counting more than 256 codes is written past its arrays (stb 2.28 checks
//   it): such a file is refused;
// - a JPEG scan that uses a Huffman table no DHT segment defined is decoded from memory stb never
//   set, and trips its assertion (an abort): such a file is refused;
// - a PNG image data chunk longer than the rest of the file makes stb grow its buffer to up to 2 GiB before
//   it finds the data missing: such a file is refused;
// - a PNG whose first IDAT chunk is empty makes stb copy zero bytes from a null pointer (undefined
//   behaviour): empty IDAT chunks hold no image data, so they are removed;
// - a JPEG with less entropy-coded data than its frame needs (one bit an 8x8 block) is decoded
//   whole from zeros, for seconds when a few hundred bytes declare millions of pixels: such a
//   file is cut short, and is refused.
// stb also decodes a dozen other formats whatever a file is named; only PNG and JPEG reach it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bps::datasets {

// Why these bytes must not be decoded, in stb's words where stb has them ("unknown image type"),
// or nullopt when stb may decode them (it reports any other damage itself). May remove chunks
// that stb mishandles and the image does not need.
std::optional<std::string> prepare_image_bytes(std::vector<std::uint8_t>& bytes);

}  // namespace bps::datasets
