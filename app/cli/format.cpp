#include "cli/format.h"

#include <cstdio>

namespace bps::cli {

std::string format_bytes(std::uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    if (unit == 0 || value >= 100.0)
        std::snprintf(text, sizeof(text), "%.0f %s", value, units[unit]);
    else
        std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
    return text;
}

std::string format_milliseconds(double milliseconds) {
    char text[32];
    if (milliseconds < 1000.0)
        std::snprintf(text, sizeof(text), "%.1f ms", milliseconds);
    else
        std::snprintf(text, sizeof(text), "%.2f s", milliseconds / 1000.0);
    return text;
}

std::string format_count(std::size_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace bps::cli
