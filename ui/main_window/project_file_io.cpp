#include "ui/main_window/project_file_io.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include "engine/project/project.h"
#include "ui/document/network_document.h"

namespace bps::ui {

std::optional<QString> write_file_atomically(const QString& path, const QByteArray& bytes) {
    const auto failed = [&path](const QString& reason) {
        return QObject::tr("Could not save %1: %2").arg(QDir::toNativeSeparators(path), reason);
    };
    // QSaveFile's message for a missing folder is a bare "No such file or directory": say which.
    const QFileInfo info(path);
    if (!info.absoluteDir().exists())
        return failed(QObject::tr("the folder %1 does not exist")
                          .arg(QDir::toNativeSeparators(info.absoluteDir().absolutePath())));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return failed(file.errorString());
    if (file.write(bytes) != bytes.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return failed(reason);
    }
    if (!file.commit()) return failed(file.errorString());
    return std::nullopt;
}

QString save_project_file(NetworkDocument& document, const std::filesystem::path& file) {
    const std::string text = project::project_to_json(document.project());
    if (const auto failure = write_file_atomically(to_qstring(file), QByteArray::fromStdString(text))) return *failure;
    document.mark_saved(file);
    return {};
}

}  // namespace bps::ui
