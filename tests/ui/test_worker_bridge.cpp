// The bridge between worker threads and the window: snapshots are coalesced to at most ~30
// deliveries a second and the last one always arrives, every run ends in exactly one
// finished() or failed(), stop is a request the job honours, and destroying a bridge whose job
// is blocked returns at once. Jobs and the test meet through promises, never through sleeps.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "app/gui/worker_bridge.h"
#include "tests/ui/qt_test_class.h"

using bps::app::JobChannel;
using bps::app::WorkerBridge;
using namespace std::chrono_literals;

namespace {

// Bounds every wait on the worker: a broken bridge fails the test instead of hanging it.
constexpr auto worker_timeout = 10s;
constexpr int signal_timeout_ms = 10000;

}  // namespace

class WorkerBridgeTest : public QObject {
    Q_OBJECT

private slots:
    void manyReportsArriveAsFewerDeliveriesAndTheLastOneArrives() {
        // The job reports as fast as it can for a quarter of a second: its work, not a wait.
        static constexpr auto busy_for = 250ms;
        WorkerBridge bridge;
        std::vector<int> delivered;
        std::vector<qint64> delivered_at_ms;
        QElapsedTimer clock;
        connect(&bridge, &WorkerBridge::progressed, this, [&](const QVariant& snapshot) {
            delivered.push_back(snapshot.toInt());
            delivered_at_ms.push_back(clock.elapsed());
        });
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        clock.start();
        QVERIFY(bridge.start([](JobChannel& channel) -> QVariant {
            const auto until = std::chrono::steady_clock::now() + busy_for;
            int reports = 0;
            while (std::chrono::steady_clock::now() < until) channel.report(++reports);
            return reports;
        }));
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        const qint64 elapsed_ms = clock.elapsed();
        const int reports = finished.front().front().value<QVariant>().toInt();

        QVERIFY(!delivered.empty());
        QCOMPARE(delivered.back(), reports);  // the latest snapshot wins and is never dropped
        QVERIFY2(delivered.size() * 100 < static_cast<std::size_t>(reports),
                 qPrintable(QString("%1 deliveries for %2 reports").arg(delivered.size()).arg(reports)));
        for (std::size_t i = 1; i < delivered.size(); ++i) QVERIFY(delivered[i] > delivered[i - 1]);
        // About one delivery per interval, never a burst (half an interval of slack for a busy
        // machine pausing the UI thread between the bridge's clock and this slot's), except the
        // flush that precedes finished().
        const qint64 interval_ms = WorkerBridge::delivery_interval.count();
        for (std::size_t i = 1; i + 1 < delivered_at_ms.size(); ++i)
            QVERIFY2(delivered_at_ms[i] - delivered_at_ms[i - 1] >= interval_ms / 2,
                     qPrintable(QString("deliveries %1 ms apart").arg(delivered_at_ms[i] - delivered_at_ms[i - 1])));
        QVERIFY2(static_cast<qint64>(delivered.size()) <= elapsed_ms / interval_ms + 2,
                 qPrintable(QString("%1 deliveries in %2 ms").arg(delivered.size()).arg(elapsed_ms)));
        qInfo("%d reports arrived as %d deliveries in %lld ms", reports, static_cast<int>(delivered.size()),
              static_cast<long long>(elapsed_ms));
    }

    void recordedEventsAllArriveInOrderBeforeFinished() {
        static constexpr int events = 5000;
        WorkerBridge bridge;
        std::vector<int> received;
        bool finished_seen = false;
        bool event_after_finished = false;
        connect(&bridge, &WorkerBridge::recorded, this, [&](const QVariant& event) {
            event_after_finished = event_after_finished || finished_seen;
            received.push_back(event.toInt());
        });
        connect(&bridge, &WorkerBridge::finished, this, [&] { finished_seen = true; });
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QVERIFY(bridge.start([](JobChannel& channel) -> QVariant {
            for (int i = 0; i < events; ++i) {
                channel.record(i);
                channel.report(-i);  // snapshots in between replace each other, never the events
            }
            return {};
        }));
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        QCOMPARE(received.size(), static_cast<std::size_t>(events));
        for (int i = 0; i < events; ++i) QCOMPARE(received[static_cast<std::size_t>(i)], i);
        QVERIFY(!event_after_finished);
    }

    void everyRunFinishesExactlyOnceWithItsResult() {
        WorkerBridge bridge;
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QSignalSpy failed(&bridge, &WorkerBridge::failed);
        for (int run = 1; run <= 3; ++run) {
            QVERIFY(bridge.start([run](JobChannel&) -> QVariant { return run * 10; }));
            QVERIFY(bridge.running());
            QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
            QVERIFY(!bridge.running());
            QCoreApplication::processEvents();  // anything else already posted would arrive now
            QCOMPARE(finished.count(), run);
            QCOMPARE(finished.back().front().value<QVariant>().toInt(), run * 10);
        }
        QCOMPARE(failed.count(), 0);
    }

    void aSecondStartWhileRunningIsRefused() {
        WorkerBridge bridge;
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QVERIFY(bridge.start([released](JobChannel&) -> QVariant {
            released.wait_for(worker_timeout);
            return 1;
        }));
        QVERIFY(!bridge.start([](JobChannel&) -> QVariant { return 2; }));
        release.set_value();
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        QCoreApplication::processEvents();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.front().front().value<QVariant>().toInt(), 1);
    }

    void anExceptionFailsTheRunWithItsMessage() {
        WorkerBridge bridge;
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QSignalSpy failed(&bridge, &WorkerBridge::failed);
        QVERIFY(bridge.start([](JobChannel& channel) -> QVariant {
            channel.report(7);
            throw std::runtime_error("train-images-idx3-ubyte.gz: the disk is full after 3.1 MB");
        }));
        QVERIFY2(failed.wait(signal_timeout_ms), "the job did not fail");
        QCoreApplication::processEvents();
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.front().front().toString(),
                 QString("train-images-idx3-ubyte.gz: the disk is full after 3.1 MB"));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!bridge.running());
    }

    void aPollingJobHonoursStop() {
        WorkerBridge bridge;
        QSignalSpy progressed(&bridge, &WorkerBridge::progressed);
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QVERIFY(bridge.start([](JobChannel& channel) -> QVariant {
            const auto give_up = std::chrono::steady_clock::now() + worker_timeout;
            for (int step = 0; std::chrono::steady_clock::now() < give_up; ++step) {
                if (channel.stop_requested()) return QStringLiteral("stopped");
                channel.report(step);
            }
            return QStringLiteral("never asked to stop");
        }));
        QVERIFY2(progressed.wait(signal_timeout_ms), "no progress before stopping");
        bridge.request_stop();
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not end after stop");
        QCOMPARE(finished.front().front().value<QVariant>().toString(), QString("stopped"));
    }

    void aWaitingJobIsToldThroughItsStopHandler() {
        WorkerBridge bridge;
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        auto waiting = std::make_shared<std::promise<void>>();
        std::future<void> job_waits = waiting->get_future();
        QVERIFY(bridge.start([waiting](JobChannel& channel) -> QVariant {
            std::promise<void> stop;  // stands in for an engine session's stop()
            std::future<void> stopped = stop.get_future();
            channel.on_stop([&stop] { stop.set_value(); });
            waiting->set_value();
            const bool told = stopped.wait_for(worker_timeout) == std::future_status::ready;
            return told ? QStringLiteral("told") : QStringLiteral("never told");
        }));
        QVERIFY2(job_waits.wait_for(worker_timeout) == std::future_status::ready, "the job did not start");
        bridge.request_stop();
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not end after stop");
        QCOMPARE(finished.front().front().value<QVariant>().toString(), QString("told"));
    }

    void aRemovedStopHandlerIsNeverCalled() {
        WorkerBridge bridge;
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        auto removed = std::make_shared<std::promise<void>>();
        std::future<void> handler_removed = removed->get_future();
        auto release = std::make_shared<std::promise<void>>();
        std::shared_future<void> released = release->get_future().share();
        auto calls = std::make_shared<std::atomic<int>>(0);
        QVERIFY(bridge.start([removed, released, calls](JobChannel& channel) -> QVariant {
            channel.on_stop([calls] { ++*calls; });
            channel.on_stop({});
            removed->set_value();
            released.wait_for(worker_timeout);
            return channel.stop_requested();
        }));
        QVERIFY2(handler_removed.wait_for(worker_timeout) == std::future_status::ready, "the job did not start");
        bridge.request_stop();
        release->set_value();
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        QVERIFY(finished.front().front().value<QVariant>().toBool());  // asked, through the flag only
        QCOMPARE(calls->load(), 0);
    }

    void destroyingTheBridgeDoesNotWaitForABlockedJob() {
        struct Handshake {
            std::promise<QThread*> entered;
            std::promise<void> release;
            std::promise<bool> done;  // whether the job saw the stop request
        };
        auto handshake = std::make_shared<Handshake>();
        std::future<QThread*> entered = handshake->entered.get_future();
        std::future<bool> done = handshake->done.get_future();
        auto* bridge = new WorkerBridge;
        bool reported_after_destruction = false;
        connect(bridge, &WorkerBridge::finished, this, [&] { reported_after_destruction = true; });
        connect(bridge, &WorkerBridge::failed, this, [&] { reported_after_destruction = true; });
        QVERIFY(bridge->start([handshake](JobChannel& channel) -> QVariant {
            std::future<void> released = handshake->release.get_future();
            handshake->entered.set_value(QThread::currentThread());
            released.wait_for(worker_timeout);
            channel.report(1);  // into a channel nobody reads any more
            handshake->done.set_value(channel.stop_requested());
            return {};
        }));
        QVERIFY2(entered.wait_for(worker_timeout) == std::future_status::ready, "the job did not start");
        const QPointer<QThread> worker_thread = entered.get();  // alive: the job is blocked in it

        delete bridge;  // would hang here until the release below if it waited for the job
        QVERIFY2(done.wait_for(0s) == std::future_status::timeout, "the job ended before it was released");

        handshake->release.set_value();
        QVERIFY2(done.wait_for(worker_timeout) == std::future_status::ready, "the job did not end after release");
        QVERIFY2(done.get(), "the destroyed bridge did not ask the job to stop");
        // The worker thread deletes itself once it has ended; nothing reaches the dead bridge.
        QTRY_VERIFY2_WITH_TIMEOUT(worker_thread.isNull(), "the worker thread was not cleaned up", signal_timeout_ms);
        QVERIFY(!reported_after_destruction);
    }

    void signalsArriveOnTheUiThread() {
        WorkerBridge bridge;
        QThread* const ui_thread = QThread::currentThread();
        QThread* job_thread = nullptr;
        std::vector<QThread*> seen;
        connect(&bridge, &WorkerBridge::progressed, this, [&] { seen.push_back(QThread::currentThread()); });
        connect(&bridge, &WorkerBridge::recorded, this, [&] { seen.push_back(QThread::currentThread()); });
        connect(&bridge, &WorkerBridge::finished, this, [&] { seen.push_back(QThread::currentThread()); });
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QVERIFY(bridge.start([&job_thread](JobChannel& channel) -> QVariant {
            job_thread = QThread::currentThread();
            channel.record(1);
            channel.report(2);
            return 3;
        }));
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        QVERIFY(job_thread != nullptr);
        QVERIFY(job_thread != ui_thread);
        QCOMPARE(seen.size(), std::size_t{3});
        for (QThread* thread : seen) QCOMPARE(thread, ui_thread);
    }

    void reportsFromAnotherThreadThanTheJobsArriveToo() {
        // An engine session calls back on its own thread while the job waits for it.
        WorkerBridge bridge;
        QSignalSpy progressed(&bridge, &WorkerBridge::progressed);
        QSignalSpy recorded(&bridge, &WorkerBridge::recorded);
        QSignalSpy finished(&bridge, &WorkerBridge::finished);
        QVERIFY(bridge.start([](JobChannel& channel) -> QVariant {
            std::thread engine([&channel] {
                for (int batch = 1; batch <= 1000; ++batch) channel.report(batch);
                channel.record(QStringLiteral("epoch 1"));
            });
            engine.join();
            return {};
        }));
        QVERIFY2(finished.wait(signal_timeout_ms), "the job did not finish");
        QCOMPARE(recorded.count(), 1);
        QCOMPARE(recorded.front().front().value<QVariant>().toString(), QString("epoch 1"));
        QVERIFY(!progressed.isEmpty());
        QCOMPARE(progressed.back().front().value<QVariant>().toInt(), 1000);
    }
};

BACKPROP_QT_GUILESS_TEST(WorkerBridgeTest)
#include "test_worker_bridge.moc"
