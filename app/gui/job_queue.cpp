#include "app/gui/job_queue.h"

#include <algorithm>

namespace bps::app {

JobQueue::JobQueue(QObject* parent) : QObject(parent), bridge_(new WorkerBridge(this)) {
    connect(bridge_, &WorkerBridge::progressed, this, [this](const QVariant& snapshot) {
        if (running_ && running_->progress) running_->progress(snapshot);
    });
    connect(bridge_, &WorkerBridge::finished, this, [this](const QVariant& result) { ended(&result, {}); });
    connect(bridge_, &WorkerBridge::failed, this, [this](const QString& message) { ended(nullptr, message); });
}

void JobQueue::submit(const QString& key, Job job, Done done, Failed failed, Progress progress) {
    const auto same_key = std::find_if(waiting_.begin(), waiting_.end(), [&](const Entry& e) { return e.key == key; });
    Entry entry{key, std::move(job), std::move(done), std::move(failed), std::move(progress)};
    if (same_key != waiting_.end())
        *same_key = std::move(entry);  // its place in the line is kept: what came before still goes first
    else
        waiting_.push_back(std::move(entry));
    if (!running_) start_next();
}

void JobQueue::drop_waiting() {
    waiting_.clear();
}

void JobQueue::start_next() {
    if (waiting_.empty()) {
        emit idle();
        return;
    }
    running_ = std::move(waiting_.front());
    waiting_.pop_front();
    bridge_->start(running_->job);
}

void JobQueue::ended(const QVariant* result, const QString& message) {
    if (!running_) return;
    const Entry finished = std::move(*running_);
    running_.reset();
    // The callbacks may submit more; the next job starts after them, so theirs join the line first.
    if (result) {
        if (finished.done) finished.done(*result);
    } else if (finished.failed) {
        finished.failed(message);
    }
    if (!running_) start_next();
}

}  // namespace bps::app
