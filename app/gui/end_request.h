#pragma once
// A request from outside to end the studio (SIGTERM: a logout, a shutdown, `kill`), turned into
// what Quit does. Killed where it stood, the studio left the devices' use marks behind
// (engine/cl/device_use_mark.h): the next start took them for a crash, said that an earlier run
// ended abruptly and emptied the driver's cache. Closed like this, a run stops at a batch
// boundary, the marks go, and a project with unsaved changes asks first.
//
// The signal handler only sets a lock-free flag, which is all a handler may do portably; a timer
// on the UI thread looks at it. Windows sends no SIGTERM: its close and end-of-session messages
// reach the window through Qt as they always did.
#include <QObject>

namespace bps::app {

class EndRequest : public QObject {
    Q_OBJECT
public:
    // Installs the handler for the whole process; one EndRequest at a time.
    explicit EndRequest(QObject* parent = nullptr);
    ~EndRequest() override;  // the default action again
    EndRequest(const EndRequest&) = delete;
    EndRequest& operator=(const EndRequest&) = delete;

signals:
    // On the UI thread, once per SIGTERM that came (a few arriving together: once).
    void requested();
};

}  // namespace bps::app
