#include "app/gui/training_runner.h"

#include <QLoggingCategory>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "app/gui/kernel_warm_up.h"
#include "app/gui/worker_bridge.h"

// Off unless asked for: QT_LOGGING_RULES="backprop.timing=true" with
// QT_MESSAGE_PATTERN="%{time process} %{message}" times a first Train from the studio's start.
Q_LOGGING_CATEGORY(startup_timing, "backprop.timing", QtWarningMsg)

namespace bps::app {

// The job lives on the bridge's worker thread; the buttons reach it through here. What is asked
// between start() and the job's creation on the worker (a Pause pressed at once) waits here and
// reaches the job as soon as it exists.
struct TrainingRunner::Controls {
    std::mutex mutex;
    session::TrainingJob* job = nullptr;
    bool started = false;      // from start() until the job has ended
    bool curve_began = false;  // the run's first batch report arrived (UI thread only)
    std::vector<std::function<void(session::TrainingJob&)>> waiting;

    template <typename Action>
    void apply(Action action) {
        std::lock_guard lock(mutex);
        if (job)
            action(*job);
        else if (started)
            waiting.emplace_back(action);
    }
    void attach(session::TrainingJob* running) {
        std::lock_guard lock(mutex);
        job = running;
        if (running)
            for (const auto& action : waiting) action(*running);
        else
            started = false;
        waiting.clear();
    }
    void begin() {
        std::lock_guard lock(mutex);
        started = true;
        waiting.clear();
    }
};

TrainingRunner::TrainingRunner(QObject* parent)
    : QObject(parent), bridge_(new WorkerBridge(this)), controls_(std::make_shared<Controls>()) {
    qRegisterMetaType<session::StageReport>();
    qRegisterMetaType<session::RunFacts>();
    qRegisterMetaType<session::BatchReport>();
    qRegisterMetaType<session::EpochReport>();
    qRegisterMetaType<session::JobResult>();
    qRegisterMetaType<session::JobFailure>();
    qRegisterMetaType<std::shared_ptr<const session::InsideSnapshot>>();
    connect(bridge_, &WorkerBridge::progressed, this, &TrainingRunner::forward);
    connect(bridge_, &WorkerBridge::recorded, this, &TrainingRunner::forward);
    connect(bridge_, &WorkerBridge::finished, this, &TrainingRunner::forward);
    connect(bridge_, &WorkerBridge::failed, this, [this](const QString& message) {
        // Only a failure of the forwarding itself comes this way; the job's own are values.
        session::JobFailure failure;
        failure.message = message.toStdString();
        emit failed(failure);
    });
}

TrainingRunner::~TrainingRunner() = default;  // the bridge asks the job to stop and never waits

bool TrainingRunner::running() const {
    return bridge_->running();
}

bool TrainingRunner::start(session::JobSetup setup) {
    if (bridge_->running()) return false;
    std::shared_ptr<Controls> controls = controls_;
    controls->begin();
    controls->curve_began = false;
    setup.inside_interval = inside_interval_;
    qCInfo(startup_timing) << "Train: a run starts";
    return bridge_->start([setup = std::move(setup), controls](JobChannel& channel) mutable -> QVariant {
        session::JobEvents events;
        events.stage = [&channel](const session::StageReport& s) { channel.record(QVariant::fromValue(s)); };
        events.started = [&channel](const session::RunFacts& f) { channel.record(QVariant::fromValue(f)); };
        // Every report, in order: each is a point of the raw loss curve, and the engine already
        // sends them at most every report_interval (~30 a second).
        events.batch = [&channel](const session::BatchReport& b) { channel.record(QVariant::fromValue(b)); };
        events.epoch = [&channel](const session::EpochReport& e) { channel.record(QVariant::fromValue(e)); };
        events.note = [&channel](const std::string& n) { channel.record(QVariant(QString::fromStdString(n))); };
        events.inside = [&channel](std::shared_ptr<const session::InsideSnapshot> snapshot) {
            channel.record(QVariant::fromValue(std::move(snapshot)));
        };
        // The start-up warm-up of this device, still building its kernels: the run waits for it
        // here, showing its progress, rather than building the same kernels beside it.
        join_warm_up(setup.device_request, events.stage, [&channel] { return channel.stop_requested(); });
        std::optional<QVariant> outcome;
        events.finished = [&outcome](const session::JobResult& r) { outcome = QVariant::fromValue(r); };
        events.failed = [&outcome](const session::JobFailure& f) { outcome = QVariant::fromValue(f); };
        {
            session::TrainingJob job(std::move(setup), std::move(events));
            controls->attach(&job);
            channel.on_stop([&job] { job.stop(); });
            // This worker only waits for the engine's; the UI thread never does. The job always
            // ends: at its last epoch, on a failure, or within a batch of a stop.
            while (!job.wait_for(std::chrono::seconds(1))) {
            }
            channel.on_stop({});
            controls->attach(nullptr);
        }
        if (!outcome) throw std::logic_error("the training job ended without a result");
        return *outcome;
    });
}

void TrainingRunner::forward(const QVariant& event) {
    if (event.userType() == qMetaTypeId<session::BatchReport>()) {
        if (!controls_->curve_began) qCInfo(startup_timing) << "Train: the first curve point";
        controls_->curve_began = true;
        emit batchReported(event.value<session::BatchReport>());
    } else if (event.userType() == qMetaTypeId<session::StageReport>())
        emit stageChanged(event.value<session::StageReport>());
    else if (event.userType() == qMetaTypeId<session::RunFacts>())
        emit runStarted(event.value<session::RunFacts>());
    else if (event.userType() == qMetaTypeId<session::EpochReport>())
        emit epochReported(event.value<session::EpochReport>());
    else if (event.userType() == qMetaTypeId<session::JobResult>())
        emit finished(event.value<session::JobResult>());
    else if (event.userType() == qMetaTypeId<session::JobFailure>())
        emit failed(event.value<session::JobFailure>());
    else if (event.userType() == QMetaType::QString)
        emit noted(event.toString());
    else if (event.userType() == qMetaTypeId<std::shared_ptr<const session::InsideSnapshot>>())
        emit insideSnapshot(event.value<std::shared_ptr<const session::InsideSnapshot>>());
}

void TrainingRunner::pause() {
    controls_->apply([](session::TrainingJob& job) { job.pause(); });
}
void TrainingRunner::resume() {
    controls_->apply([](session::TrainingJob& job) { job.resume(); });
}
void TrainingRunner::step() {
    controls_->apply([](session::TrainingJob& job) { job.step(); });
}
void TrainingRunner::stop() {
    bridge_->request_stop();
}
void TrainingRunner::set_inside_interval(std::chrono::milliseconds interval) {
    inside_interval_ = interval;
    controls_->apply([interval](session::TrainingJob& job) { job.set_inside_interval(interval); });
}
void TrainingRunner::set_learning_rate(float rate) {
    controls_->apply([rate](session::TrainingJob& job) { job.set_learning_rate(rate); });
}

}  // namespace bps::app
