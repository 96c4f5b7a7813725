#include "ui/results/results_export.h"

#include <QBuffer>
#include <QByteArray>
#include <QObject>

#include "engine/io/same_file.h"
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
