#include "app/gui/kernel_warm_up.h"

#include <QLabel>
#include <QLoggingCategory>
#include <QStatusBar>
#include <QVariant>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "app/gui/worker_bridge.h"
#include "ui/devices/comparison_panel.h"
#include "ui/devices/device_panel.h"

Q_DECLARE_LOGGING_CATEGORY(startup_timing)  // app/gui/training_runner.cpp

namespace bps::app {

namespace {

// The warm-up in progress, shared with the runs' workers that join it. One per process: the
// studio warms up one device at a time.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool running = false;
    std::vector<device::DeviceDescription> devices;
    std::size_t device = 0;  // position in `devices`
    session::WarmUpProgress latest;
    std::uint64_t reports = 0;  // counts the reports, so a joiner passes each one on once
};

Gate& gate() {
    static Gate shared;
    return shared;
}

// Ends the gate when the warm-up's job ends, however it ends.
struct GateEnd {
    ~GateEnd() {
        {
            std::lock_guard lock(gate().mutex);
            gate().running = false;
        }
        gate().changed.notify_all();
    }
};

session::StageReport stage_of(const session::WarmUpProgress& progress) {
    if (progress.testing) return {session::Stage::preparing, "testing the device before its first training", 0, 0};
    if (progress.total == 0) return {session::Stage::preparing, "opening the device", 0, 0};
    if (progress.tuning)
        return {session::Stage::preparing, "tuning kernels for the device", progress.done, progress.total};
    return {session::Stage::preparing, "building kernels", progress.done, progress.total};
}

}  // namespace

KernelWarmUp::KernelWarmUp(QStatusBar* status_bar, ui::DevicePanel* device_panel, ui::ComparisonPanel* comparison_panel,
                           QObject* parent)
    : QObject(parent),
      bridge_(new WorkerBridge(this)),
      status_(new QLabel),
      device_panel_(device_panel),
      comparison_panel_(comparison_panel) {
    qRegisterMetaType<session::WarmUpProgress>();
    qRegisterMetaType<session::DeviceWarmUp>();
    status_->setObjectName("warmUpStatus");
    status_->hide();
    if (status_bar) status_bar->addWidget(status_);
    connect(bridge_, &WorkerBridge::recorded, this, [this](const QVariant& event) {
        const auto progress = event.value<session::WarmUpProgress>();
        status_->setText(progress_text(progress));
        status_->setToolTip(
            tr("The device's kernels are built once and kept, so that training starts at once. "
               "Train need not wait: a run started now goes on from here."));
        status_->show();
        emit progressed(progress);
    });
    connect(bridge_, &WorkerBridge::finished, this, [this](const QVariant& value) {
        const auto result = value.value<session::DeviceWarmUp>();
        status_->hide();
        qCInfo(startup_timing) << "warm-up: done," << (result.was_warm ? "the cache was warm" : "kernels built");
        if (result.tuning && device_panel_) device_panel_->show_tuning(device_index_, *result.tuning);
        if (result.self_test) {
            if (device_panel_) device_panel_->show_self_test(device_index_, *result.self_test);
            if (comparison_panel_) comparison_panel_->show_self_test(device_index_, *result.self_test);
        }
        emit finished(result);
    });
    connect(bridge_, &WorkerBridge::failed, this, [this](const QString& message) {
        // Quietly: the learner may never train on this device, and a run meets the problem itself.
        qCInfo(startup_timing) << "warm-up: failed:" << message;
        status_->setText(tr("The device could not be prepared"));
        status_->setToolTip(message);
        status_->show();
        emit failed(message);
    });
}

KernelWarmUp::~KernelWarmUp() {
    if (status_ && !status_->parent()) delete status_;  // shown nowhere (no status bar was given)
}

QString KernelWarmUp::progress_text(const session::WarmUpProgress& progress) {
    if (progress.testing) return tr("Preparing the device: testing it");
    if (progress.total == 0) return tr("Preparing the device: opening it");
    if (progress.tuning) return tr("Preparing the device: tuning kernels %1/%2").arg(progress.done).arg(progress.total);
    return tr("Preparing the device: %1/%2 kernels").arg(progress.done).arg(progress.total);
}

QLabel* KernelWarmUp::status() const {
    return status_;
}

bool KernelWarmUp::running() const {
    return bridge_->running();
}

bool KernelWarmUp::start(std::vector<device::DeviceDescription> devices, std::size_t device) {
    if (bridge_->running() || device >= devices.size() || !devices[device].skipped.empty()) return false;
    const device::DeviceDescription warmed = devices[device];
    device_index_ = warmed.index;
    qCInfo(startup_timing) << "warm-up: starts for" << QString::fromStdString(warmed.name);
    {
        // Open before the worker starts: a Train pressed at once joins it.
        std::lock_guard lock(gate().mutex);
        gate().running = true;
        gate().devices = std::move(devices);
        gate().device = device;
        gate().latest = {};
        gate().reports = 0;
    }
    const bool started = bridge_->start([warmed](JobChannel& channel) -> QVariant {
        const GateEnd end;
        const session::DeviceWarmUp result = session::warm_up_device(
            warmed,
            [&channel](const session::WarmUpProgress& progress) {
                {
                    std::lock_guard lock(gate().mutex);
                    gate().latest = progress;
                    ++gate().reports;
                }
                gate().changed.notify_all();
                channel.record(QVariant::fromValue(progress));
            },
            [&channel] { return channel.stop_requested(); });
        return QVariant::fromValue(result);
    });
    if (!started) {
        const GateEnd end;  // nothing runs: a run must not wait for it
    }
    return started;
}

bool KernelWarmUp::stop_and_wait(std::chrono::milliseconds limit) {
    bridge_->request_stop();
    std::unique_lock lock(gate().mutex);
    return gate().changed.wait_for(lock, limit, [] { return !gate().running; });
}

bool join_warm_up(const std::string& device_request, const std::function<void(const session::StageReport&)>& stage,
                  const std::function<bool()>& stop_requested) {
    Gate& shared = gate();
    std::unique_lock lock(shared.mutex);
    if (!shared.running) return false;
    try {
        if (device::select_device(shared.devices, device_request) != shared.device) return false;
    } catch (const std::exception&) {
        return false;  // a request the run will refuse itself, with its own words
    }
    std::uint64_t passed_on = 0;
    while (shared.running && !stop_requested()) {
        if (shared.reports != passed_on) {
            passed_on = shared.reports;
            const session::StageReport report = stage_of(shared.latest);
            lock.unlock();
            if (stage) stage(report);
            lock.lock();
            continue;
        }
        // Bounded, so that a stop asked for while nothing reports is seen within a moment.
        shared.changed.wait_for(lock, std::chrono::milliseconds(100));
    }
    return true;
}

}  // namespace bps::app
