#include "app/gui/device_self_test.h"

#include "app/gui/worker_bridge.h"
#include "engine/session/device_check.h"
#include "ui/devices/device_panel.h"

namespace bps::app {

DeviceSelfTest::DeviceSelfTest(ui::DevicePanel* panel, QObject* parent)
    : QObject(parent), panel_(panel), bridge_(new WorkerBridge(this)) {
    qRegisterMetaType<device::SelfTestResult>();
    connect(panel_, &ui::DevicePanel::selfTestRequested, this, &DeviceSelfTest::run);
    connect(bridge_, &WorkerBridge::finished, this, [this](const QVariant& value) {
        const auto result = value.value<device::SelfTestResult>();
        panel_->set_self_testing(false);
        panel_->show_self_test(static_cast<std::size_t>(device_index_), result);
        emit finished(device_index_, result);
    });
    connect(bridge_, &WorkerBridge::failed, this, [this](const QString& message) {
        // The device went away (NoDeviceError): said as a test that could not finish.
        device::SelfTestResult result;
        result.error = message.toStdString();
        panel_->set_self_testing(false);
        panel_->show_self_test(static_cast<std::size_t>(device_index_), result);
        emit finished(device_index_, result);
    });
}

bool DeviceSelfTest::running() const {
    return bridge_->running();
}

bool DeviceSelfTest::run(int device_index) {
    if (bridge_->running() || device_index < 0) return false;
    const std::optional<device::DeviceDescription> device =
        panel_->device_with_index(static_cast<std::size_t>(device_index));
    if (!device) return false;
    device_index_ = device_index;
    panel_->set_self_testing(true);
    return bridge_->start(
        [device = *device](JobChannel&) -> QVariant { return QVariant::fromValue(device::check_device(device)); });
}

}  // namespace bps::app
