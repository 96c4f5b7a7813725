#pragma once
// The Devices tab's Run Self-Test: device::check_device (engine/device/self_test.h) on a worker
// thread through the WorkerBridge, its result shown in the device's row and the tab's status
// line. The UI thread never waits for the device; a second press while one runs does nothing.
#include <QObject>

#include "engine/device/self_test.h"

Q_DECLARE_METATYPE(bps::device::SelfTestResult)

namespace bps::ui {
class DevicePanel;
}

namespace bps::app {

class WorkerBridge;

class DeviceSelfTest : public QObject {
    Q_OBJECT
public:
    explicit DeviceSelfTest(ui::DevicePanel* panel, QObject* parent = nullptr);

    // Starts the self-test of the listed device with this index; false while one runs or when no
    // listed device has it.
    bool run(int device_index);
    bool running() const;

signals:
    void finished(int device_index, const bps::device::SelfTestResult& result);

private:
    ui::DevicePanel* panel_;
    WorkerBridge* bridge_;
    int device_index_ = -1;
};

}  // namespace bps::app
