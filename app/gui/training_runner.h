#pragma once
// The dashboard's handle on one training run: an engine session::TrainingJob forwarded through
// the WorkerBridge, like downloads and dataset loading. Every report arrives, in order: batch
// figures (the engine sends them at most ~30 a second, and the bridge delivers what came in one
// go), stage changes, the run's facts and epochs; then exactly one finished() or failed(). Every signal comes on the UI
// thread, and no call here waits for the device: the buttons only ask, and the stage signals confirm.
#include <QObject>
#include <chrono>
#include <memory>

#include "engine/session/training_job.h"

Q_DECLARE_METATYPE(bps::session::StageReport)
Q_DECLARE_METATYPE(bps::session::RunFacts)
Q_DECLARE_METATYPE(bps::session::BatchReport)
Q_DECLARE_METATYPE(bps::session::EpochReport)
Q_DECLARE_METATYPE(bps::session::JobResult)
Q_DECLARE_METATYPE(bps::session::JobFailure)
Q_DECLARE_METATYPE(std::shared_ptr<const bps::session::InsideSnapshot>)

namespace bps::app {

class WorkerBridge;

class TrainingRunner : public QObject {
    Q_OBJECT
public:
    explicit TrainingRunner(QObject* parent = nullptr);
    // Asks a run still going to stop and returns at once; the run ends on its own.
    ~TrainingRunner() override;

    // Starts the job; false (and nothing happens) while a run is active.
    bool start(session::JobSetup setup);
    bool running() const;

    // Honoured at the next batch boundary (a pause asked for while preparing: before the first
    // batch); ignored when no run is active.
    void pause();
    void resume();
    void step();
    void stop();
    void set_learning_rate(float rate);
    // Live snapshots of the weights and gradients (insideSnapshot) at most this often, for this
    // run and the next ones; zero: none. The Inside view asks while it is shown.
    void set_inside_interval(std::chrono::milliseconds interval);

signals:
    void stageChanged(const bps::session::StageReport& stage);
    void runStarted(const bps::session::RunFacts& facts);
    void batchReported(const bps::session::BatchReport& report);
    void epochReported(const bps::session::EpochReport& report);
    void finished(const bps::session::JobResult& result);
    void failed(const bps::session::JobFailure& failure);
    // Something the learner should know that did not stop the run (JobEvents::note): a damaged
    // kernel cache cleared or rebuilt.
    void noted(const QString& note);
    // A live snapshot (set_inside_interval), shared: nothing is copied on the way.
    void insideSnapshot(std::shared_ptr<const bps::session::InsideSnapshot> snapshot);

private:
    struct Controls;  // the running job, shared with the bridge's worker thread
    void forward(const QVariant& event);
    WorkerBridge* bridge_;
    std::shared_ptr<Controls> controls_;
    std::chrono::milliseconds inside_interval_{0};
};

}  // namespace bps::app
