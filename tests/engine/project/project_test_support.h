#pragma once
// Shared by the project tests: the crafted files and a whole-message oracle.
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/project/project.h"

namespace bps::test {

// tests/engine/project/invalid, found from this header's own path so no build setting is needed.
inline std::filesystem::path invalid_projects_dir() {
    return std::filesystem::path(__FILE__).parent_path() / "invalid";
}

// The whole what() of the ProjectError that parsing `text` throws, or "no error".
inline std::string parse_error(std::string_view text, const std::string& source = "p.json") {
    try {
        project::parse_project(text, source);
    } catch (const project::ProjectError& error) {
        return error.what();
    }
    return "no error";
}

inline std::string read_error(const std::filesystem::path& file) {
    try {
        project::read_project(file);
    } catch (const project::ProjectError& error) {
        return error.what();
    }
    return "no error";
}

}  // namespace bps::test
