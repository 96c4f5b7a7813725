#include "engine/base/bounded_text.h"

#include <fstream>

namespace bps::io {

BoundedText read_bounded_text(const std::filesystem::path& file, std::uint64_t max_bytes) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return {TextRead::unreadable, {}};
    BoundedText result;
    constexpr std::size_t chunk = std::size_t{1} << 16;
    std::string buffer(chunk, '\0');
    while (in) {
        in.read(buffer.data(), chunk);
        const auto got = static_cast<std::size_t>(in.gcount());
        // One byte past the cap is enough to know the file is too large.
        if (result.text.size() + got > max_bytes) return {TextRead::too_large, {}};
        result.text.append(buffer, 0, got);
    }
    if (in.bad()) return {TextRead::unreadable, {}};
    return result;
}

std::string size_cap_words(std::uint64_t max_bytes) {
    if (max_bytes >= (1u << 20) && max_bytes % (1u << 20) == 0) return std::to_string(max_bytes >> 20) + " MiB";
    if (max_bytes >= (1u << 10) && max_bytes % (1u << 10) == 0) return std::to_string(max_bytes >> 10) + " KiB";
    return std::to_string(max_bytes) + " bytes";
}

}  // namespace bps::io
