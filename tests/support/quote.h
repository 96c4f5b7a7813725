#pragma once
// A path in double quotes, for the command lines the tests run through the shell.
#include <filesystem>
#include <string>

namespace bps::test {

inline std::string quote(const std::filesystem::path& path) {
    std::string text = "\"";  // built with +=: GCC 12 warns wrongly on "text" + std::string
    text += path.string();
    text += '"';
    return text;
}

}  // namespace bps::test
