#pragma once
// Numbers as a learner reads them.
#include <cstddef>
#include <cstdint>
#include <string>

namespace bps::cli {

std::string format_bytes(std::uint64_t bytes);          // "512 B", "48 KiB", "7.7 GiB"
std::string format_milliseconds(double milliseconds);   // "3.2 ms", "1.84 s"
std::string format_count(std::size_t count, const std::string& noun);  // "1 program", "3 programs"

}  // namespace bps::cli
