// The main window when no OpenCL platform is installed (CTest points OCL_ICD_VENDORS at an
// empty folder): it opens and shows how to install a driver instead of crashing.
#include <QLabel>
#include <QMessageBox>
#include <QTableView>
#include <QTest>

#include "app/gui/startup_facts.h"
#include "app/gui/startup_warning.h"
#include "tests/ui/qt_test_class.h"
#include "ui/devices/device_panel.h"
#include "ui/main_window/main_window.h"

class NoOpenClTest : public QObject {
    Q_OBJECT
private slots:
    void theWindowOpensAndExplainsHowToInstallADriver() {
        std::string warning;
        bps::ui::StartupFacts facts = bps::app::gather_startup_facts(warning);
        QVERIFY(facts.devices.empty());
        QVERIFY(QString::fromStdString(warning).contains("No OpenCL platform was found"));

        bps::ui::MainWindow window(std::move(facts));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.device_panel()->table()->isVisible());
        const QString shown = window.device_panel()->summary()->text();
        QVERIFY(shown.contains("No OpenCL platform was found"));
#if defined(__linux__)
        QVERIFY(shown.contains("pocl-opencl-icd"));
#endif
        // The same text pops up over the window, as backprop-studio shows it at start-up.
        QMessageBox* dialog = bps::app::show_startup_warning(&window, warning);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(dialog->text(), QString::fromStdString(warning));
        QVERIFY(window.findChild<QMessageBox*>("startupWarning") == dialog);
        dialog->close();
    }
};

BACKPROP_QT_TEST(NoOpenClTest)
#include "test_no_opencl.moc"
