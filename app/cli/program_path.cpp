#include "app/cli/program_path.h"

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

}  // namespace bps::cli
