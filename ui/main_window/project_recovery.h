#pragma once
// Autosave for crashes: while the project has unsaved changes, every 30 s its JSON and the path of
// the file it belongs to go to a recovery file of this window's own in the user's data folder
// (never over the learner's file, which only Save writes). A save, a return to the saved state
// or a clean close removes the recovery file, so one left behind at the next start means the
// program did not close cleanly: the window then offers to restore it. Each window holds a lock
// beside its recovery file, so a second running instance does not offer the first one's.
// The folder is injectable for tests.
#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "engine/project/project.h"

class QTimer;

namespace bps::ui {

class NetworkDocument;

class ProjectRecovery : public QObject {
    Q_OBJECT
public:
    static constexpr int interval_ms = 30'000;

    // A recovery file that no running window owns.
    struct LeftBehind {
        QString recovery_file;
        project::Project project;
        std::filesystem::path original_file;  // empty for a project never saved
        QDateTime saved_at;
    };

    // The user's data folder + "backprop-studio/recovery", beside the downloaded datasets.
    static QString default_folder();

    ProjectRecovery(NetworkDocument* document, QString folder, QObject* parent = nullptr);
    ~ProjectRecovery() override;

    const QString& folder() const { return folder_; }
    // This window's recovery file (it exists only while there is something to recover).
    const QString& file() const { return file_; }
    QTimer* timer() const { return timer_; }

    // Writes the project when it has unsaved changes (what the timer calls); the message on failure.
    std::optional<QString> autosave();
    // Removes this window's recovery file: after a save and at a clean close.
    void discard();
    // Recovery files of windows that are gone, newest first. Unreadable ones are deleted: there is
    // nothing in them to offer.
    std::vector<LeftBehind> left_behind() const;
    // Deletes a recovery file that was restored or declined.
    static void remove(const QString& recovery_file);

signals:
    // An autosave could not be written (a full disk): the window says so in the status bar.
    void autosaveFailed(const QString& message);

private:
    NetworkDocument* document_;
    QString folder_;
    QString file_;
    std::unique_ptr<QLockFile> lock_;  // taken at the first autosave
    QTimer* timer_;
};

}  // namespace bps::ui
