#include "ui/main_window/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace bps::ui {

namespace {

const char* const key = "recentFiles";

// One spelling per file, so opening it by another relative path does not list it twice.
QString canonical(const QString& path) {
    return QFileInfo(path).absoluteFilePath();
}

}  // namespace

QStringList RecentFiles::files() const {
    return settings_.value(key).toStringList();
}

void RecentFiles::add(const QString& path) {
    QStringList list = files();
    const QString file = canonical(path);
    list.removeAll(file);
    list.prepend(file);
    while (list.size() > max_count) list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    list.removeAll(canonical(path));
    list.removeAll(path);
    store(list);
}

void RecentFiles::store(const QStringList& list) {
    settings_.setValue(key, list);
}

}  // namespace bps::ui
