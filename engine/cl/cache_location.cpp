#include "engine/cl/cache_location.h"

#include <cstdlib>
#include <optional>
#include <system_error>

#include "engine/cl/pocl_cache_check.h"

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> get_env(const char* name) {
#ifdef _WIN32
    char* value = nullptr;
    std::size_t len = 0;
    if (_dupenv_s(&value, &len, name) != 0 || value == nullptr) return std::nullopt;
    std::string s(value);
    std::free(value);
    return s;
#else
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
#endif
}

#ifdef _WIN32
std::wstring widen_ascii(const char* s) {
    return std::wstring(s, s + std::char_traits<char>::length(s));
}
#endif

// Paths go through the wide API on Windows so non-ASCII user folders survive.
std::optional<fs::path> get_env_path(const char* name) {
#ifdef _WIN32
    wchar_t* value = nullptr;
    std::size_t len = 0;
    if (_wdupenv_s(&value, &len, widen_ascii(name).c_str()) != 0 || value == nullptr) {
        return std::nullopt;
    }
    fs::path p(value);
    std::free(value);
    return p;
#else
    if (auto v = get_env(name)) return fs::path(*v);
    return std::nullopt;
#endif
}

bool set_env(const char* name, const std::string& value) {
#ifdef _WIN32
    return _putenv_s(name, value.c_str()) == 0;
#else
    return setenv(name, value.c_str(), 1) == 0;
#endif
}

bool set_env_path(const char* name, const fs::path& value) {
#ifdef _WIN32
    return _wputenv_s(widen_ascii(name).c_str(), value.c_str()) == 0;
#else
    return set_env(name, value.string());
#endif
}

void unset_env(const char* name) {
#ifdef _WIN32
    _putenv_s(name, "");  // an empty value removes the variable on Windows
#else
    unsetenv(name);
#endif
}

std::string path_text(const fs::path& p) {
    const auto u = p.u8string();
    return std::string(reinterpret_cast<const char*>(u.data()), u.size());
}

}  // namespace

fs::path cache_root() {
    if (auto v = get_env_path("BACKPROP_CACHE_DIR"); v && !v->empty()) return *v;
    fs::path base;
#if defined(_WIN32)
    if (auto v = get_env_path("LOCALAPPDATA"); v && !v->empty()) base = *v;
#elif defined(__APPLE__)
    if (auto v = get_env_path("HOME"); v && !v->empty()) base = *v / "Library" / "Caches";
#else
    // The XDG spec says relative values are invalid and must be ignored.
    if (auto v = get_env_path("XDG_CACHE_HOME"); v && !v->empty() && v->is_absolute()) {
        base = *v;
    } else if (auto home = get_env_path("HOME"); home && !home->empty()) {
        base = *home / ".cache";
    }
#endif
    if (base.empty()) {
        std::error_code ec;
        base = fs::temp_directory_path(ec);
    }
    return base / "backprop-studio";
}

std::vector<std::string> point_vendor_caches_under(const fs::path& cache_root) {
    std::vector<std::string> set;
    const auto point = [&](const char* name, const fs::path& folder) {
        if (auto v = get_env(name); v && !v->empty()) return false;  // the user's choice wins
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec) return false;
        if (!set_env_path(name, folder)) return false;
        set.push_back(std::string(name) + "=" + path_text(folder));
        return true;
    };
    for (const DriverCache& cache : driver_caches(cache_root)) {
        // Intel's persistence without a folder is useless, so it is only switched on with ours.
        if (point(cache.variable.c_str(), cache.folder) && cache.variable == "NEO_CACHE_DIR") {
            if (auto v = get_env("NEO_CACHE_PERSISTENT"); !v || v->empty()) {
                if (set_env("NEO_CACHE_PERSISTENT", "1")) set.push_back("NEO_CACHE_PERSISTENT=1");
            }
        }
    }
    return set;
}

std::vector<DriverCache> driver_caches(const fs::path& cache_root) {
    return {{"PoCL", "POCL_CACHE_DIR", cache_root / "pocl"},
            {"NVIDIA", "CUDA_CACHE_PATH", cache_root / "cuda"},
            {"Intel", "NEO_CACHE_DIR", cache_root / "neo"}};
}

std::vector<DriverCache> driver_caches_to_clear(const fs::path& cache_root) {
    std::vector<DriverCache> caches = driver_caches(cache_root);
    const std::size_t beside = caches.size();
    for (std::size_t i = 0; i < beside; ++i) {
        const std::optional<fs::path> chosen = get_env_path(caches[i].variable.c_str());
        if (!chosen || chosen->empty()) continue;
        // point_vendor_caches_under sets the variable to our own folder: that one is listed already.
        std::error_code ignored;
        if (fs::weakly_canonical(*chosen, ignored) == fs::weakly_canonical(caches[i].folder, ignored)) continue;
        caches.push_back({caches[i].driver, caches[i].variable, *chosen, true});
    }
    return caches;
}

std::size_t clear_driver_caches(const std::vector<DriverCache>& caches) {
    std::size_t removed = 0;
    for (const DriverCache& cache : caches) {
        // A folder the user chose may hold anything (it may be their home folder): only what is
        // surely PoCL's own in it goes, and nothing of the others'.
        std::vector<fs::path> entries;
        if (cache.set_by_user) {
            if (cache.driver != "PoCL") continue;
            entries = pocl_cache_entries(cache.folder);
        } else {
            std::error_code error;
            for (fs::directory_iterator entry(cache.folder, error), end; !error && entry != end; entry.increment(error))
                entries.push_back(entry->path());
        }
        for (const fs::path& entry : entries) {
            std::error_code ignored;
            const std::uintmax_t count = fs::remove_all(entry, ignored);
            if (count != static_cast<std::uintmax_t>(-1)) removed += static_cast<std::size_t>(count);
        }
    }
    return removed;
}

std::string driver_cache_advice(const DriverCache& cache) {
    if (!cache.set_by_user || cache.driver == "PoCL") return {};
    return "delete the files in " + path_text(cache.folder) + ", which " + cache.variable + " points " + cache.driver +
           "'s driver at, if it keeps failing";
}

ChildCacheEnvironment::ChildCacheEnvironment(const fs::path& root) {
    const auto save_and_set = [&](const std::string& name, const fs::path& value) {
        const std::optional<std::string> old = get_env(name.c_str());
        saved_.push_back({name, old.has_value(), old.value_or("")});
        set_env_path(name.c_str(), value);
    };
    save_and_set("BACKPROP_CACHE_DIR", root);
    for (const DriverCache& cache : driver_caches(root)) {
        std::error_code ignored;  // a folder that cannot be made leaves the driver without a cache: still cold
        fs::create_directories(cache.folder, ignored);
        save_and_set(cache.variable, cache.folder);
    }
    const std::optional<std::string> persistent = get_env("NEO_CACHE_PERSISTENT");
    saved_.push_back({"NEO_CACHE_PERSISTENT", persistent.has_value(), persistent.value_or("")});
    set_env("NEO_CACHE_PERSISTENT", "1");
}

ChildCacheEnvironment::~ChildCacheEnvironment() {
    for (const Saved& saved : saved_) {
        if (saved.was_set)
            set_env(saved.name.c_str(), saved.value);
        else
            unset_env(saved.name.c_str());
    }
}

fs::path kernel_cache_dir() {
    return cache_root() / "kernels";
}

std::vector<std::string> point_vendor_caches_into_cache_root() {
    return point_vendor_caches_under(cache_root());
}

}  // namespace bps::cl
