#include "engine/io/json_damage.h"

#include <algorithm>

namespace bps::io {

JsonDamage json_damage(std::string_view text, const nlohmann::json::parse_error& error) {
    JsonDamage damage;
    // nlohmann's byte is the 1-based position of the last character read; count lines to it.
    const std::size_t end = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < end; ++i)
        if (text[i] == '\n') {
            ++damage.line;
            line_start = i + 1;
        }
    damage.column = end - line_start + 1;
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while
    // parsing object - unexpected '}'; expected string literal": keep what went wrong.
    damage.what = error.what();
    if (auto colon = damage.what.find(": "); colon != std::string::npos) damage.what = damage.what.substr(colon + 2);
    if (auto dash = damage.what.find(" - "); damage.what.rfind("syntax error", 0) == 0 && dash != std::string::npos)
        damage.what = damage.what.substr(dash + 3);
    return damage;
}

}  // namespace bps::io
