#pragma once
// The one way long work reports to the window: a job runs on a worker QThread (Qt's threaded
// examples), talks to a JobChannel from any thread, and the WorkerBridge, on the UI thread,
// turns what it said into signals: progress snapshots at most ~30 a second (the latest wins),
// recorded events each in order, and exactly one finished() or failed() per start(). The UI
// thread never waits for the job: stopping is a request, and a bridge destroyed while its job
// still runs leaves the job to end on its own; the thread and its channel then clean up after
// themselves (QThread::finished -> deleteLater, the channel is shared by both sides).
//
// Used for downloads (app/gui/dataset_download.h), dataset loading (app/gui/dataset_loading.h)
// and training (app/gui/training_runner.h). A training run's job function builds an engine
// session::TrainingJob whose events go to the channel through record() (every one, in order: the
// engine already limits its batch reports to ~30 a second). It registers
// on_stop([&job] { job.stop(); }), waits on its worker thread for the job to end (the UI thread
// never does), removes the handler with on_stop({}) before the job goes, and returns the job's
// result or failure as a value.
//
// The engine's callbacks run on the engine's thread; JobChannel is safe to call from there as
// long as the job function has not returned (it waits for the job, so that holds). The dashboard
// connects progressed() and recorded() (or TrainingRunner's typed signals) and replots on its own
// timer.
#include <QObject>
#include <QString>
#include <QVariant>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QTimer;

namespace bps::app {

namespace detail {

// Emits on behalf of one run; lives on the worker thread and is deleted when it ends. The
// bridge listens through queued connections, which Qt drops when the bridge is destroyed.
class JobRelay : public QObject {
    Q_OBJECT
signals:
    void waiting();  // something new is in the channel
    void ended(bool ok, QVariant result, QString message);
};

}  // namespace detail

// What a job sees. Thread-safe: the job, the engine's callbacks and the UI thread share it.
class JobChannel {
public:
    // The latest progress snapshot; one not yet delivered is replaced (a batch counter).
    void report(QVariant snapshot);
    // An event delivered without fail, in order (an epoch's figures, a stage change).
    void record(QVariant event);
    // Whether the learner asked to stop; a job polls it where it can.
    bool stop_requested() const { return stop_requested_.load(); }
    // For a job that waits on something else (an engine session): called once when stop is
    // requested, on the requesting (UI) thread, so it must only ask, never wait, and must not
    // call on_stop; called at once, on this thread, if stop was already requested. An empty
    // handler removes the previous one, waiting for a call of it in progress, so that what it
    // refers to can then go; the bridge removes it when the job returns.
    void on_stop(std::function<void()> handler);

private:
    friend class WorkerBridge;
    struct Pending {
        std::optional<QVariant> latest;
        std::vector<QVariant> events;
    };
    void request_stop();
    Pending take();                        // UI thread: what arrived since the last take
    void attach(detail::JobRelay* relay);  // the worker thread, before the job and after it

    mutable std::mutex mutex_;
    detail::JobRelay* relay_ = nullptr;  // null once the job has returned
    Pending pending_;
    bool wake_posted_ = false;  // one waiting() in flight at a time, so reports never flood the queue
    std::atomic<bool> stop_requested_{false};
    std::mutex stop_mutex_;  // held while the handler runs, so removing it waits for that call
    std::function<void()> stop_handler_;
};

// A job: runs on the worker thread; its return value arrives in finished(), an exception's
// what() in failed().
using Job = std::function<QVariant(JobChannel&)>;

class WorkerBridge : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds delivery_interval{33};  // about 30 deliveries a second

    explicit WorkerBridge(QObject* parent = nullptr);
    // Requests stop and returns at once; a job still running ends on its own and its reports
    // go nowhere.
    ~WorkerBridge() override;

    // Starts job on a new worker thread; false (and nothing happens) while a job runs.
    bool start(Job job);
    // Asks the running job to stop (non-blocking); its finished() or failed() still follows.
    void request_stop();
    // From start() until finished() or failed() has been emitted.
    bool running() const { return channel_ != nullptr; }

signals:
    // All on the UI thread.
    void progressed(QVariant snapshot);
    void recorded(QVariant event);
    void finished(QVariant result);
    void failed(QString message);

private:
    void snapshot_waiting();
    void deliver();
    void ended(bool ok, const QVariant& result, const QString& message);

    std::shared_ptr<JobChannel> channel_;  // the running job's
    QTimer* next_delivery_;
    std::chrono::steady_clock::time_point last_delivery_{};
};

}  // namespace bps::app
