#pragma once
// Jobs that share something the engine keeps between them (a predictor with its kernels and
// weights on the device) run one after another through one WorkerBridge, never two at once, and
// the UI thread never waits for any. A job queued under a key replaces the one still waiting under
// the same key, so a learner drawing faster than the device answers gets the latest drawing
// predicted, not a backlog; the job running is never interrupted.
//
//     queue.submit("try", [predictor](app::JobChannel&) { return QVariant::fromValue(...); },
//                  [this](const QVariant& result) { show(result); },
//                  [this](const QString& message) { show_failure(message); });
#include <QObject>
#include <QString>
#include <QVariant>
#include <deque>
#include <functional>
#include <optional>

#include "app/gui/worker_bridge.h"

namespace bps::app {

class JobQueue : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const QVariant& result)>;
    using Failed = std::function<void(const QString& message)>;
    using Progress = std::function<void(const QVariant& snapshot)>;

    explicit JobQueue(QObject* parent = nullptr);

    // Runs `job` on a worker after those before it; `done` or `failed` then runs on the UI thread,
    // and `progress` with each snapshot the job reports (JobChannel::report) while it runs.
    void submit(const QString& key, Job job, Done done, Failed failed = {}, Progress progress = {});
    // Forgets the jobs still waiting (the learner chose another run); the running one ends on its own.
    void drop_waiting();
    bool busy() const { return running_.has_value(); }
    std::size_t waiting() const { return waiting_.size(); }

signals:
    // Nothing runs and nothing waits: tests synchronise on it.
    void idle();

private:
    struct Entry {
        QString key;
        Job job;
        Done done;
        Failed failed;
        Progress progress;
    };
    void start_next();
    void ended(const QVariant* result, const QString& message);

    WorkerBridge* bridge_;
    std::deque<Entry> waiting_;
    std::optional<Entry> running_;
};

}  // namespace bps::app
