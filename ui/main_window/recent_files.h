#pragma once
// File ▸ Open Recent: the projects the learner opened or saved last, newest first, at most
// max_count, kept in QSettings so they survive a restart. The settings object is passed in, so
// tests point it at a temporary file.
#include <QString>
#include <QStringList>

class QSettings;

namespace bps::ui {

class RecentFiles {
public:
    static constexpr int max_count = 8;

    explicit RecentFiles(QSettings& settings) : settings_(settings) {}

    // Absolute paths, newest first.
    QStringList files() const;
    // Puts `path` first (moving it up when it is there already) and drops the oldest beyond max_count.
    void add(const QString& path);
    void remove(const QString& path);

private:
    void store(const QStringList& files);
    QSettings& settings_;
};

}  // namespace bps::ui
