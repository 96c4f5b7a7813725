#pragma once
// Project files on disk for the window, without dialogs (so tests and the window share them):
// a project saved from the document, and whole files written so that a crash or a full disk never
// leaves them half-written (QSaveFile writes beside the target and renames into place on commit).
// The project files and the recovery files both go through here, and a failure comes back as a
// message naming the file.
#include <QByteArray>
#include <QString>
#include <filesystem>
#include <optional>

namespace bps::ui {

class NetworkDocument;

// Nothing on success; otherwise "Could not save FILE: REASON" in the learner's words.
std::optional<QString> write_file_atomically(const QString& path, const QByteArray& bytes);

// Saves the document's project (project::project_to_json, so fields this version does not know
// survive) to `file` and marks the document saved there. Empty on success; otherwise the message,
// and the document stays modified.
QString save_project_file(NetworkDocument& document, const std::filesystem::path& file);

// Paths between Qt and the engine without losing non-ASCII names on Windows (where
// path::string() is in the ANSI code page).
inline QString to_qstring(const std::filesystem::path& path) {
    return QString::fromStdU16String(path.u16string());
}
inline std::filesystem::path to_path(const QString& path) {
    return std::filesystem::path(path.toStdU16String());
}

}  // namespace bps::ui
