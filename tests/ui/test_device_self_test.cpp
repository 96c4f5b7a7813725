// The Devices tab's Run Self-Test on the test device: a working driver passes and the row says
// so, a driver that drops a launch is found computing wrong results (red, with the figures), and
// the test runs on a worker thread while the button waits. Each test keeps its own cache root,
// where the results are stored; waits are on signals with a bound, never on the clock.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "app/gui/device_self_test.h"
#include "engine/cl/fault_injection.h"
#include "engine/session/devices.h"
#include "tests/ui/own_cache_root.h"
#include "tests/ui/qt_test_class.h"
#include "ui/devices/device_list_model.h"
#include "ui/devices/device_panel.h"
#include "ui/main_window/main_window.h"

using namespace bps;

namespace {

constexpr int self_test_timeout_ms = 120000;  // CLBlast's first compile on a cold cache, on a busy machine

using test::OwnCacheRoot;

QString self_test_cell(const ui::DevicePanel* panel, int row) {
    return panel->table()->model()->index(row, ui::DeviceListModel::SelfTest).data().toString();
}

}  // namespace

class DeviceSelfTestTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> folder_;

    std::unique_ptr<ui::MainWindow> make_window() {
        ui::StartupFacts facts;
        facts.devices = device::list_devices();
        facts.default_device = device::default_device_index(facts.devices);
        facts.recovery_folder = folder_->filePath("recovery").toStdString();
        facts.data_root = folder_->filePath("data").toStdString();
        return std::make_unique<ui::MainWindow>(std::move(facts));
    }
    // Presses Run Self-Test for the first device and waits for the result.
    static device::SelfTestResult press_and_wait(ui::DevicePanel* panel, app::DeviceSelfTest& self_test) {
        QSignalSpy finished(&self_test, &app::DeviceSelfTest::finished);
        panel->table()->selectRow(0);
        if (!panel->self_test_button()->isEnabled()) {
            qWarning("Run Self-Test is disabled");
            return {};
        }
        panel->self_test_button()->click();  // as a press (the window is not laid out on screen)
        if (!self_test.running() && finished.isEmpty()) {
            qWarning("the self-test did not start");
            return {};
        }
        if (self_test.running()) {
            if (panel->self_test_button()->isEnabled()) qWarning("Run Self-Test stayed enabled while it ran");
            if (panel->cache_status()->text() != "Running the self-test…") qWarning("no word of the running test");
        }
        if (finished.isEmpty() && !finished.wait(self_test_timeout_ms)) {
            qWarning("the self-test did not end");
            return {};
        }
        return finished.front().at(1).value<device::SelfTestResult>();
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
    }

    void aWorkingDevicePassesAndItsRowSaysSo() {
        const OwnCacheRoot root;
        auto window = make_window();
        ui::DevicePanel* panel = window->device_panel();
        QCOMPARE(self_test_cell(panel, 0), QString("not run yet"));
        app::DeviceSelfTest self_test(panel);
        const device::SelfTestResult result = press_and_wait(panel, self_test);
        QVERIFY2(result.correct(), result.summary().c_str());
        QCOMPARE(self_test_cell(panel, 0), QString("passed"));
        const QString name = QString::fromStdString(device::list_devices()[0].name);
        QCOMPARE(panel->cache_status()->text(), name + ": " + QString::fromStdString(result.summary()));
        QVERIFY(panel->self_test_button()->isEnabled());
        QCOMPARE(device::list_devices()[0].self_test, device::SelfTestState::passed);  // stored for the next start
    }

    void aDriverThatDropsALaunchIsFoundComputingWrongResults() {
        const OwnCacheRoot root;
        auto window = make_window();
        ui::DevicePanel* panel = window->device_panel();
        app::DeviceSelfTest self_test(panel);
        cl::arm_fault({cl::FaultPoint::skip, 1, CL_SUCCESS});  // the first launch does nothing, and says it ran
        const device::SelfTestResult result = press_and_wait(panel, self_test);
        cl::disarm_fault();
        QVERIFY(!result.correct());
        QVERIFY(result.error.empty());
        QCOMPARE(self_test_cell(panel, 0), QString("WRONG RESULTS"));
        QVERIFY(panel->cache_status()->text().contains(" computed WRONG RESULTS: "));
        QVERIFY(panel->summary()->text().contains("No device passed its self-test"));
        QCOMPARE(device::list_devices()[0].self_test, device::SelfTestState::wrong_results);
    }
};

BACKPROP_QT_TEST(DeviceSelfTestTest)
#include "test_device_self_test.moc"
