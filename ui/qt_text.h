#pragma once
// The engine's strings and paths as Qt's, the same way in every view: text is UTF-8, and a path
// goes through its wide form so that a Windows path with non-ASCII folders survives.
#include <QString>
#include <filesystem>
#include <string>

namespace bps::ui {

inline QString text_of(const std::string& text) {
    return QString::fromStdString(text);
}

inline QString path_text(const std::filesystem::path& path) {
    return QString::fromStdWString(path.wstring());
}

}  // namespace bps::ui
