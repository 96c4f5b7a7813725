#pragma once
// What the scripted walkthrough (tests/walkthrough/) sees of the real window: with
// BACKPROP_STUDIO_PROBE=FOLDER set, the studio answers each request file the walkthrough drops
// into FOLDER ("request-ID", holding "state" or "shot PATH") with "state-ID.json": the windows,
// every visible named widget with its place on the screen and its text, the rows of the item
// views, the menus and the dialog open, and the docks that scroll sideways. "shot PATH" also saves
// the screen as a PNG. The answer is written under another name and renamed, so that the
// walkthrough never reads half a file.
//
// Nothing here acts on the window: the walkthrough clicks with xdotool like a learner, and the
// probe only says where things are. Without the variable the studio has no probe.
#include <QDir>
#include <QObject>
#include <QSet>
#include <QString>

class QFileSystemWatcher;
class QTimer;

namespace bps::app {

class UiProbe : public QObject {
    Q_OBJECT
public:
    // The probe for the folder in BACKPROP_STUDIO_PROBE, or nullptr when it is not set.
    static UiProbe* from_environment(QObject* parent);

    UiProbe(const QString& folder, QObject* parent);

    // The state of every window, as the JSON text the walkthrough reads.
    static QByteArray state_json();

private:
    void answer_requests();

    QDir folder_;
    QFileSystemWatcher* watcher_;
    QTimer* poll_;  // for file systems whose watcher misses a rename
    QSet<QString> answered_;
};

}  // namespace bps::app
