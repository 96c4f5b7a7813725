#include "app/cli/program_path.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace bps::cli {

namespace {
std::string& stored_program_path() {
    static std::string path = "backprop";
    return path;
}
}  // namespace

void remember_program_path(const char* argv0) {
    if (argv0 == nullptr || *argv0 == '\0') return;
    std::filesystem::path path(argv0);
    // A bare name was found on PATH and the shell finds it again; a relative path is made
    // absolute now, while the working folder is the one it is relative to.
    std::error_code ignored;
    if (path.has_parent_path()) path = std::filesystem::absolute(path, ignored);
    stored_program_path() = path.string();
}

const std::string& program_path() {
    return stored_program_path();
}

std::filesystem::path program_folder() {
    const std::filesystem::path path(stored_program_path());
    std::error_code ignored;
    if (path.has_parent_path()) return std::filesystem::weakly_canonical(path, ignored).parent_path();
        // Started by its bare name: the shell found it on PATH, and so do we.
#ifdef _WIN32
    const char separator = ';';
    const std::filesystem::path name = path.has_extension() ? path : std::filesystem::path(path.string() + ".exe");
#else
    const char separator = ':';
    const std::filesystem::path name = path;
#endif
    const char* const search = std::getenv("PATH");
    std::string folders = search ? search : "";
    std::size_t start = 0;
    while (start <= folders.size()) {
        const std::size_t end = std::min(folders.find(separator, start), folders.size());
        const std::filesystem::path folder = folders.substr(start, end - start);
        if (!folder.empty() && std::filesystem::is_regular_file(folder / name, ignored))
            return std::filesystem::weakly_canonical(folder / name, ignored).parent_path();
        start = end + 1;
    }
    return {};
}

}  // namespace bps::cli
