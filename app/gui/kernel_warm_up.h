#pragma once
// The studio's warm-up at start: while the learner looks around, a worker builds the engine's
// programs for the default device into the kernel cache and runs the device's self-test
// (session::warm_up_device), so that the first Train starts in seconds instead of half a minute.
// It shows quietly in the status bar ("Preparing the device: 5/14 kernels", objectName
// "warmUpStatus") and goes when done; the self-test's result goes where the Devices and Compare
// Devices tabs show it. A warm cache costs a look at the cache's files and nothing shows.
//
// It never blocks Train: a run for the device being warmed up joins the warm-up (join_warm_up,
// called on the run's worker), its stage showing the warm-up's progress, and then opens the device
// with every program cached, so the same kernels are never built twice at once. A warm-up that
// fails says so in the status bar only: the run then meets the problem itself and reports it.
#include <QObject>
#include <QPointer>
#include <QString>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/session/device_warm_up.h"
#include "engine/session/training_job.h"

Q_DECLARE_METATYPE(bps::session::WarmUpProgress)
Q_DECLARE_METATYPE(bps::session::DeviceWarmUp)

class QLabel;
class QStatusBar;

namespace bps::ui {
class ComparisonPanel;
class DevicePanel;
}  // namespace bps::ui

namespace bps::app {

class WorkerBridge;

class KernelWarmUp : public QObject {
    Q_OBJECT
public:
    // The status line goes into `status_bar`; either panel may be null (tests).
    KernelWarmUp(QStatusBar* status_bar, ui::DevicePanel* device_panel, ui::ComparisonPanel* comparison_panel,
                 QObject* parent = nullptr);
    ~KernelWarmUp() override;

    // Warms up devices[device] (the default device) on a worker; false, and nothing happens, while
    // one runs, for no device or a skipped one. `devices` are the listed devices, by which a run's
    // device request is matched to this one.
    bool start(std::vector<device::DeviceDescription> devices, std::size_t device);
    bool running() const;
    QLabel* status() const;
    // When the studio closes: asks the warm-up to stop after the program it builds, and waits for
    // that, at most `limit`, so that the device's in-use mark goes as after any ordinary work (a
    // mark left behind reads as a crash at the next start). False when it still runs.
    bool stop_and_wait(std::chrono::milliseconds limit);

    // "Preparing the device: 5/14 kernels": the status line for a report.
    static QString progress_text(const session::WarmUpProgress& progress);

signals:
    void progressed(const bps::session::WarmUpProgress& progress);
    void finished(const bps::session::DeviceWarmUp& result);
    void failed(const QString& message);

private:
    WorkerBridge* bridge_;
    QPointer<QLabel> status_;
    ui::DevicePanel* device_panel_;
    ui::ComparisonPanel* comparison_panel_;
    std::size_t device_index_ = 0;  // DeviceDescription::index of the device warmed up
};

// On a run's worker thread, before its job opens the device: while a warm-up of the device that
// `device_request` selects runs, waits for it to end, passing its progress on to `stage` as the
// run's own (opening the device, building kernels n/N, testing the device). Returns at once when
// none runs, and as soon as `stop_requested` says so. True when it waited.
bool join_warm_up(const std::string& device_request, const std::function<void(const session::StageReport&)>& stage,
                  const std::function<bool()>& stop_requested);

}  // namespace bps::app
