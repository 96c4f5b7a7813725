#include "app/gui/worker_bridge.h"

#include <QThread>
#include <QTimer>
#include <exception>
#include <utility>

namespace bps::app {

void JobChannel::report(QVariant snapshot) {
    const std::lock_guard lock(mutex_);
    pending_.latest = std::move(snapshot);
    // Emitted under the lock so that the relay cannot be deleted meanwhile; a queued emission
    // only posts an event, and the UI thread never posts while it holds this lock.
    if (relay_ && !std::exchange(wake_posted_, true)) emit relay_->waiting();
}

void JobChannel::record(QVariant event) {
    const std::lock_guard lock(mutex_);
    pending_.events.push_back(std::move(event));
    if (relay_ && !std::exchange(wake_posted_, true)) emit relay_->waiting();
}

void JobChannel::on_stop(std::function<void()> handler) {
    const std::lock_guard lock(stop_mutex_);
    // Either request_stop() finds the handler stored, or this finds the flag set: one call.
    if (stop_requested_.load()) {
        stop_handler_ = nullptr;
        if (handler) handler();
        return;
    }
    stop_handler_ = std::move(handler);
}

void JobChannel::request_stop() {
    if (stop_requested_.exchange(true)) return;
    const std::lock_guard lock(stop_mutex_);
    if (stop_handler_) std::exchange(stop_handler_, nullptr)();
}

JobChannel::Pending JobChannel::take() {
    const std::lock_guard lock(mutex_);
    wake_posted_ = false;
    return std::exchange(pending_, {});
}

void JobChannel::attach(detail::JobRelay* relay) {
    const std::lock_guard lock(mutex_);
    relay_ = relay;
}

WorkerBridge::WorkerBridge(QObject* parent) : QObject(parent), next_delivery_(new QTimer(this)) {
    next_delivery_->setSingleShot(true);
    next_delivery_->setTimerType(Qt::PreciseTimer);  // a coarse timer may fire early, above ~30 a second
    connect(next_delivery_, &QTimer::timeout, this, &WorkerBridge::deliver);
}

WorkerBridge::~WorkerBridge() {
    // The job keeps its own reference to the channel; destroying this object disconnects the
    // relay and drops the events already posted to it.
    request_stop();
}

bool WorkerBridge::start(Job job) {
    if (running()) return false;
    channel_ = std::make_shared<JobChannel>();
    last_delivery_ = {};
    auto* relay = new detail::JobRelay;
    connect(relay, &detail::JobRelay::waiting, this, &WorkerBridge::snapshot_waiting, Qt::QueuedConnection);
    connect(relay, &detail::JobRelay::ended, this, &WorkerBridge::ended, Qt::QueuedConnection);
    QThread* thread = QThread::create([relay, channel = channel_, job = std::move(job)] {
        channel->attach(relay);
        bool ok = false;
        QVariant result;
        QString message;
        try {
            result = job(*channel);
            ok = true;
        } catch (const std::exception& error) {
            message = QString::fromStdString(error.what());
        } catch (...) {
            message = QStringLiteral("failed with an exception that carries no message");
        }
        channel->on_stop({});      // what a handler refers to may be gone with the job
        channel->attach(nullptr);  // late engine callbacks now go nowhere
        emit relay->ended(ok, result, message);
    });
    thread->setObjectName(QStringLiteral("bridge worker"));
    relay->moveToThread(thread);
    // Qt's documented clean-up: the relay goes with the thread's last events, the thread
    // object on the UI thread's loop once it has ended. Nothing here waits for either.
    connect(thread, &QThread::finished, relay, &QObject::deleteLater);
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
    return true;
}

void WorkerBridge::request_stop() {
    if (channel_) channel_->request_stop();
}

void WorkerBridge::snapshot_waiting() {
    if (!channel_ || next_delivery_->isActive()) return;
    const auto since = std::chrono::steady_clock::now() - last_delivery_;
    if (since >= delivery_interval) {
        deliver();
        return;
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(delivery_interval - since);
    next_delivery_->start(wait);
}

void WorkerBridge::deliver() {
    if (!channel_) return;
    JobChannel::Pending pending = channel_->take();
    // Timed after take(), which may wait for the lock behind a job that reports non-stop.
    last_delivery_ = std::chrono::steady_clock::now();
    // Events first: a snapshot is the newest thing the job said.
    for (const QVariant& event : pending.events) emit recorded(event);
    if (pending.latest) emit progressed(*pending.latest);
}

void WorkerBridge::ended(bool ok, const QVariant& result, const QString& message) {
    if (!channel_) return;
    next_delivery_->stop();
    deliver();  // the final snapshot is never dropped, however recent the last delivery
    channel_.reset();
    if (ok)
        emit finished(result);
    else
        emit failed(message);
}

}  // namespace bps::app
