#pragma once
// The CLI's tables: a cell's text filled with spaces to its column's width, on the right or the
// left. Text longer than its column is kept whole.
#include <cstddef>
#include <string>

namespace bps::cli {

inline std::string padded(const std::string& text, std::size_t width, bool right_aligned) {
    const std::string padding(width > text.size() ? width - text.size() : 0, ' ');
    return right_aligned ? padding + text : text + padding;
}

}  // namespace bps::cli
