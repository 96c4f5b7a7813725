// The main window under the offscreen platform, with the real devices (PoCL in CI).
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "app/gui/startup_facts.h"
#include "engine/base/build_info.h"
#include "tests/ui/qt_test_class.h"
#include "ui/devices/device_list_model.h"
#include "ui/devices/device_panel.h"
#include "ui/main_window/main_window.h"

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void opensAndListsTheDevicesWithTheDefaultMarked() {
        std::string warning;
        bps::ui::StartupFacts facts = bps::app::gather_startup_facts(warning);
        QVERIFY2(warning.empty(), warning.c_str());
        QVERIFY(!facts.devices.empty());
        const std::vector<bps::device::DeviceDescription> devices = facts.devices;
        const std::size_t chosen = facts.default_device;

        bps::ui::MainWindow window(std::move(facts));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // A window not started yet holds a new, unsaved-to-disk project.
        QCOMPARE(window.windowTitle(), QString("Untitled[*] — Backprop Studio"));

        window.panels()->setCurrentWidget(window.device_panel());  // the Network tab comes first
        QTableView* table = window.device_panel()->table();
        QVERIFY(table->isVisible());
        const QAbstractItemModel* model = table->model();
        QCOMPARE(model->rowCount(), static_cast<int>(devices.size()));
        bool lists_pocl = false;
        for (int row = 0; row < model->rowCount(); ++row) {
            const QString name = model->index(row, bps::ui::DeviceListModel::Name).data().toString();
            const QString platform = model->index(row, bps::ui::DeviceListModel::Platform).data().toString();
            const QString marker = model->index(row, bps::ui::DeviceListModel::Marker).data().toString();
            QCOMPARE(name, QString::fromStdString(devices[static_cast<std::size_t>(row)].name));
            QCOMPARE(marker, static_cast<std::size_t>(row) == chosen ? QString("default") : QString());
            lists_pocl = lists_pocl || platform == "Portable Computing Language";
        }
        QVERIFY2(lists_pocl, "PoCL is not in the device list");
        QVERIFY(window.device_panel()->summary()->text().contains(
            QString::fromStdString(devices[chosen].name).toHtmlEscaped()));
        const auto* dataset = window.findChild<QLabel*>("datasetStatus");
        QVERIFY(dataset);
        QVERIFY(dataset->text().contains("Fashion-MNIST"));
    }

    // Help ▸ About: the version and revision, the Qt in use, the libraries and the kernel cache, in
    // the dialog the learner copies from when reporting a problem.
    void helpAboutShowsTheVersionTheLibrariesAndTheKernelCache() {
        QTemporaryDir cache;
        QVERIFY(cache.isValid());
        qputenv("BACKPROP_CACHE_DIR", cache.path().toUtf8());
        std::string warning;
        bps::ui::StartupFacts facts = bps::app::gather_startup_facts(warning);
        qunsetenv("BACKPROP_CACHE_DIR");
        bps::ui::MainWindow window(std::move(facts));
        QString shown;
        window.prompts().about = [&shown](const QString& html) { shown = html; };

        const auto* help = window.findChild<QMenu*>("helpMenu");
        QVERIFY(help);
        QVERIFY(help->actions().contains(window.about_action()));
        window.about_action()->trigger();
        QVERIFY2(shown.startsWith("<h3>Backprop Studio " +
                                  QString::fromStdString(bps::session::program_version()).toHtmlEscaped() + "</h3>"),
                 qPrintable(shown));
        const auto row = [](const QString& name, const QString& value) {
            return "<tr><td><b>" + name + "</b>&nbsp;&nbsp;</td><td>" + value.toHtmlEscaped() + "</td></tr>";
        };
        QVERIFY2(shown.contains(row("Qt", qVersion())), qPrintable(shown));
        QVERIFY2(shown.contains(row("Kernel cache", QDir(cache.path()).filePath("kernels"))), qPrintable(shown));
        for (const char* name : {"CLBlast", "HDF5", "OpenCL loader"})
            QVERIFY2(shown.contains(QString("<tr><td><b>%1</b>").arg(name)), name);
    }

    void anUnknownBackpropDeviceFallsBackToTheDefaultWithAWarning() {
        qputenv("BACKPROP_DEVICE", "no-such-device-xyz");
        std::string warning;
        const bps::ui::StartupFacts facts = bps::app::gather_startup_facts(warning);
        qunsetenv("BACKPROP_DEVICE");
        QVERIFY(!facts.devices.empty());
        QCOMPARE(facts.default_device, bps::device::default_device_index(facts.devices));
        QVERIFY(QString::fromStdString(warning).contains("no OpenCL device matches 'no-such-device-xyz'"));
    }
};

BACKPROP_QT_TEST(MainWindowTest)
#include "test_main_window.moc"
