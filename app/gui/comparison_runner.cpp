#include "app/gui/comparison_runner.h"

#include <atomic>

#include "app/gui/worker_bridge.h"

namespace bps::app {

ComparisonRunner::ComparisonRunner(QObject* parent) : QObject(parent), bridge_(new WorkerBridge(this)) {
    qRegisterMetaType<bench::ComparisonProgress>();
    qRegisterMetaType<bench::DeviceComparison>();
    qRegisterMetaType<std::vector<bench::DeviceComparison>>();
    connect(bridge_, &WorkerBridge::progressed, this,
            [this](const QVariant& snapshot) { emit progressed(snapshot.value<bench::ComparisonProgress>()); });
    connect(bridge_, &WorkerBridge::recorded, this,
            [this](const QVariant& event) { emit deviceCompared(event.value<bench::DeviceComparison>()); });
    connect(bridge_, &WorkerBridge::finished, this,
            [this](const QVariant& result) { emit finished(result.value<std::vector<bench::DeviceComparison>>()); });
    connect(bridge_, &WorkerBridge::failed, this, &ComparisonRunner::failed);
}

ComparisonRunner::~ComparisonRunner() = default;  // the bridge asks the job to stop and never waits

bool ComparisonRunner::running() const {
    return bridge_->running();
}

void ComparisonRunner::cancel() {
    bridge_->request_stop();
}

bool ComparisonRunner::start(bench::ComparisonSetup setup) {
    return bridge_->start([setup = std::move(setup)](JobChannel& channel) -> QVariant {
        std::atomic<bool> cancel{false};
        channel.on_stop([&cancel] { cancel = true; });
        bench::ComparisonEvents events;
        events.progress = [&channel](const bench::ComparisonProgress& p) { channel.report(QVariant::fromValue(p)); };
        events.device_done = [&channel](const bench::DeviceComparison& d) { channel.record(QVariant::fromValue(d)); };
        std::vector<bench::DeviceComparison> results;
        try {
            results = bench::compare_devices(setup, events, &cancel);
        } catch (...) {
            channel.on_stop({});  // before `cancel` goes
            throw;
        }
        channel.on_stop({});
        return QVariant::fromValue(results);
    });
}

}  // namespace bps::app
