#include "datasets/data_location.h"

#include <cstdlib>
#include <optional>
#include <system_error>

namespace bps::datasets {

namespace fs = std::filesystem;

namespace {

// Paths go through the wide API on Windows so non-ASCII user folders survive.
std::optional<fs::path> environment_path(const wchar_t* wide_name, const char* name) {
#ifdef _WIN32
    (void)name;
    wchar_t* value = nullptr;
    std::size_t length = 0;
    if (_wdupenv_s(&value, &length, wide_name) != 0 || value == nullptr) return std::nullopt;
    fs::path path(value);
    std::free(value);
    return path;
#else
    (void)wide_name;
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return fs::path(value);
#endif
}

}  // namespace

fs::path user_data_root() {
    if (auto chosen = environment_path(L"BACKPROP_DATA_DIR", "BACKPROP_DATA_DIR"); chosen && !chosen->empty())
        return *chosen;
    return user_data_folder() / "datasets";
}

fs::path user_data_folder() {
    fs::path base;
#if defined(_WIN32)
    if (auto local = environment_path(L"LOCALAPPDATA", "LOCALAPPDATA"); local && !local->empty()) base = *local;
#elif defined(__APPLE__)
    if (auto home = environment_path(L"HOME", "HOME"); home && !home->empty())
        base = *home / "Library" / "Application Support";
#else
    // The XDG spec says relative values are invalid and must be ignored.
    if (auto xdg = environment_path(L"XDG_DATA_HOME", "XDG_DATA_HOME"); xdg && xdg->is_absolute()) {
        base = *xdg;
    } else if (auto home = environment_path(L"HOME", "HOME"); home && !home->empty()) {
        base = *home / ".local" / "share";
    }
#endif
    if (base.empty()) {
        std::error_code ignored;
        base = fs::temp_directory_path(ignored);
    }
    return base / "backprop-studio";
}

}  // namespace bps::datasets
