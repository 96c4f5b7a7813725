#include "engine/base/number_text.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace bps::session {

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

std::string format_thousands(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

std::string format_flops(double flops) {
    const char* prefixes[] = {"", "K", "M", "G", "T"};
    int prefix = 0;
    while (flops >= 1000.0 && prefix < 4) {
        flops /= 1000.0;
        ++prefix;
    }
    char text[32];
    std::snprintf(text, sizeof(text), prefix == 0 ? "%.0f %sFLOPs" : "%.2f %sFLOPs", flops, prefixes[prefix]);
    return text;
}

std::string format_duration(double seconds) {
    const long long whole = seconds < 0 ? 0 : static_cast<long long>(seconds + 0.5);
    char text[32];
    if (whole < 60)
        std::snprintf(text, sizeof(text), "%lld s", whole);
    else if (whole < 3600)
        std::snprintf(text, sizeof(text), "%lld min %02lld s", whole / 60, whole % 60);
    else
        std::snprintf(text, sizeof(text), "%lld h %02lld min", whole / 3600, whole % 3600 / 60);
    return text;
}

// A learning rate as short as it can be and still exact to six digits (printf's %g).
std::string format_fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string format_rate(double rate) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", rate);
    return text;
}

std::string format_exact(double value) {
    char text[64];
    const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
    return std::string(text, end.ptr);
}

std::string format_exact(float value) {
    char text[64];
    const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
    return std::string(text, end.ptr);
}

namespace {

// Now, in UTC or in local time, formatted by std::put_time.
std::string format_now(bool utc, const char* format) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm parts{};
#ifdef _WIN32
    if (utc)
        gmtime_s(&parts, &now);
    else
        localtime_s(&parts, &now);
#else
    if (utc)
        gmtime_r(&now, &parts);
    else
        localtime_r(&now, &parts);
#endif
    std::ostringstream text;
    text << std::put_time(&parts, format);
    return text.str();
}

}  // namespace

std::string format_utc_now() {
    return format_now(true, "%Y-%m-%d %H:%M UTC");
}

std::string format_local_iso_now() {
    return format_now(false, "%Y-%m-%dT%H:%M:%S");
}

}  // namespace bps::session
