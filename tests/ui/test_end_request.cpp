// A request to end from outside (SIGTERM: a logout, a shutdown, `kill`) closes the studio as Quit
// does (app/gui/end_request.h). Killed by it before, the studio left its devices' use marks behind,
// and the next start took them for a crash and emptied the driver's cache. Waits are on signals
// and on the studio's own answers, each with a bound.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

#include "app/gui/end_request.h"
#include "tests/ui/qt_test_class.h"

namespace {

constexpr int answer_timeout_ms = 120000;  // a cold start of the studio on a busy machine

}  // namespace

class EndRequestTest : public QObject {
    Q_OBJECT

private slots:
    void each_sigterm_becomes_one_request_on_the_ui_thread() {
        bps::app::EndRequest end_request;
        QSignalSpy requested(&end_request, &bps::app::EndRequest::requested);
        QCOMPARE(std::raise(SIGTERM), 0);  // this process lives on: the handler took it
        QVERIFY2(requested.wait(10000), "no request came after SIGTERM");
        QCOMPARE(requested.count(), 1);
        QCOMPARE(std::raise(SIGTERM), 0);  // the handler is still in place for the next one
        QVERIFY2(requested.wait(10000), "no request came after a second SIGTERM");
        QCOMPARE(requested.count(), 2);
    }

    void the_studio_ends_normally_on_sigterm() {
        QTemporaryDir home;
        QTemporaryDir probe;
        QVERIFY(home.isValid() && probe.isValid());
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("QT_QPA_PLATFORM", "offscreen");
        environment.insert("HOME", home.path());
        environment.insert("XDG_CONFIG_HOME", home.filePath(".config"));
        environment.insert("XDG_DATA_HOME", home.filePath(".local/share"));
        environment.insert("BACKPROP_STUDIO_PROBE", probe.path());
        QProcess studio;
        studio.setProcessEnvironment(environment);
        studio.setProcessChannelMode(QProcess::ForwardedChannels);
        studio.start(BACKPROP_STUDIO, {});
        QVERIFY2(studio.waitForStarted(answer_timeout_ms), "the studio did not start");

        // The handshake: the probe answers once the window is up, and the handler is in place by then.
        QFile request(QDir(probe.path()).filePath("request-1.tmp"));
        QVERIFY(request.open(QIODevice::WriteOnly));
        request.write("state");
        request.close();
        QVERIFY(request.rename(QDir(probe.path()).filePath("request-1")));
        const QString answer = QDir(probe.path()).filePath("state-1.json");
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(answer) || studio.state() == QProcess::NotRunning, answer_timeout_ms);
        QVERIFY2(QFile::exists(answer), "the studio ended before it answered the probe");

        studio.terminate();  // SIGTERM
        QVERIFY2(studio.waitForFinished(answer_timeout_ms), "the studio did not end after SIGTERM");
        // Killed by the signal, it would be a crash exit: it closed its window and returned instead.
        QCOMPARE(studio.exitStatus(), QProcess::NormalExit);
        QCOMPARE(studio.exitCode(), 0);
    }
};

BACKPROP_QT_TEST(EndRequestTest)
#include "test_end_request.moc"
