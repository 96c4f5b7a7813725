#pragma once
// A small gzip file that inflates to far more than it holds: `header`, then `zeros` zero bytes,
// deflated by zlib in pieces (so making one costs little memory).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bps::test {

std::vector<std::uint8_t> gzip_bomb(const std::vector<std::uint8_t>& header, std::size_t zeros);

}  // namespace bps::test
