#include "app/cli/printable.h"

#include <cstdio>

namespace bps::cli {

std::string printable(std::string_view text, bool keep_lines) {
    std::string shown;
    shown.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        char escape[8] = {};
        if (byte == '\n') {
            shown += keep_lines ? "\n" : "\\n";
        } else if (byte == '\t') {
            shown += "\\t";
        } else if (byte < 0x20 || byte == 0x7f) {
            std::snprintf(escape, sizeof escape, "\\x%02x", byte);
            shown += escape;
        } else if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            // U+0080 to U+009F in UTF-8: C1 controls, which some terminals obey (0x9b starts a sequence).
            std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(text[++i]));
            shown += escape;
        } else {
            shown += static_cast<char>(byte);
        }
    }
    return shown;
}

}  // namespace bps::cli
