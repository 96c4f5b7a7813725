#include "ui/results/results_export.h"

#include <QBuffer>
#include <QByteArray>
#include <QObject>

#include "engine/base/same_file.h"
#include "ui/main_window/project_file_io.h"

namespace bps::ui {

namespace {

bool write_bytes(const QByteArray& bytes, const QString& path, QString* error) {
    if (const auto failure = write_file_atomically(path, bytes)) {
        if (error) *error = *failure;
        return false;
    }
    return true;
}

}  // namespace

bool refuse_kept(const QString& path, const std::vector<KeptFile>& kept, QString* error) {
    const std::filesystem::path destination(path.toStdWString());
    for (const KeptFile& file : kept)
        if (!file.file.empty() && io::same_file(destination, file.file)) {
            if (error)
                *error = QObject::tr("%1 is %2: save under another name, so that it is kept.").arg(path, file.what);
            return false;
        }
    return true;
}

std::vector<KeptFile> run_files(const session::RunRecord& record) {
    const QString run = QStringLiteral("'%1'").arg(
        QString::fromStdString(record.receipt.name.empty() ? record.id() : record.receipt.name));
    std::vector<std::filesystem::path> files{record.folder / "evaluation.json", record.folder / "samples.bin"};
    std::error_code unreadable;
    for (const auto& entry : std::filesystem::directory_iterator(record.folder, unreadable))
        if (entry.is_regular_file(unreadable)) files.push_back(entry.path());
    std::vector<KeptFile> kept;
    for (const std::filesystem::path& file : files)
        kept.push_back(
            {file, QObject::tr("%1 of the run %2").arg(QString::fromStdString(file.filename().string()), run)});
    return kept;
}

bool save_png(const QImage& picture, const QString& path, QString* error) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (picture.isNull() || !picture.save(&buffer, "PNG")) {
        if (error) *error = QObject::tr("Could not save %1: the picture could not be encoded as PNG").arg(path);
        return false;
    }
    return write_bytes(bytes, path, error);
}

bool save_text(const std::string& text, const QString& path, QString* error) {
    return write_bytes(QByteArray::fromStdString(text), path, error);
}

QStringList class_names_for(const QStringList& names, int classes) {
    QStringList complete;
    for (int c = 0; c < classes; ++c)
        complete << (c < names.size() && !names[c].isEmpty() ? names[c] : QString::number(c));
    return complete;
}

std::vector<std::string> to_std_names(const QStringList& names) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(names.size()));
    for (const QString& name : names) out.push_back(name.toStdString());
    return out;
}

}  // namespace bps::ui
