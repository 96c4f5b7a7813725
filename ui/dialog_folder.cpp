#include "ui/dialog_folder.h"

#include <QDir>
#include <QStandardPaths>
#include <QVariant>
#include <QWidget>

namespace bps::ui {

QString dialog_folder(const QWidget* widget) {
    for (const QWidget* at = widget; at; at = at->parentWidget()) {
        const QString folder = at->property(dialog_folder_property).toString();
        if (!folder.isEmpty()) return folder;
    }
    return QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
}

QString in_dialog_folder(const QWidget* widget, const QString& file_name) {
    return QDir(dialog_folder(widget)).filePath(file_name);
}

}  // namespace bps::ui
