// backprop-studio [FILE]: the Qt window. Discovery runs in the engine; the ui only shows the result.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QPalette>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleHints>
#include <cstdlib>

#include "app/gui/comparison_controller.h"
#include "app/gui/course_controller.h"
#include "app/gui/dataset_download.h"
#include "app/gui/dataset_loading.h"
#include "app/gui/device_self_test.h"
#include "app/gui/end_request.h"
#include "app/gui/inside_controller.h"
#include "app/gui/job_queue.h"
#include "app/gui/kernel_warm_up.h"
#include "app/gui/results_controller.h"
#include "app/gui/startup_facts.h"
#include "app/gui/startup_warning.h"
#include "app/gui/training_controller.h"
#include "app/gui/ui_probe.h"
#include "engine/base/build_info.h"
#include "engine/device/device_description.h"
#include "engine/session/build_check.h"
#include "engine/session/devices.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/devices/comparison_panel.h"
#include "ui/main_window/main_window.h"

namespace {

#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
// Qt 6.5 tells the platform's light or dark choice. Where the style does not follow it by itself
// (Fusion on some desktops), a dark palette keeps the window in the learner's scheme.
void follow_color_scheme(Qt::ColorScheme scheme) {
    QApplication::setPalette(QPalette());  // back to the platform's own, which may be dark already
    if (scheme != Qt::ColorScheme::Dark || QApplication::palette().color(QPalette::Window).lightness() <= 128) return;
    QPalette palette = QApplication::palette();
    const QColor window(45, 45, 48), base(30, 30, 32), text(230, 230, 230), disabled(127, 127, 127);
    for (const QPalette::ColorRole role :
         {QPalette::Window, QPalette::Button, QPalette::AlternateBase, QPalette::ToolTipBase})
        palette.setColor(role, window);
    palette.setColor(QPalette::Base, base);
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText})
        palette.setColor(role, text);
    palette.setColor(QPalette::Highlight, QColor(42, 130, 218));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(90, 160, 255));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabled);
    QApplication::setPalette(palette);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    bps::device::point_driver_caches_beside_ours();  // before the first OpenCL call
    QApplication app(argc, argv);
    QApplication::setApplicationName("Backprop Studio");
    QApplication::setOrganizationName("Backprop Studio");
    QApplication::setApplicationVersion(QString::fromStdString(bps::session::program_version()));
    // Before the crash guard skips a device, it builds in a separate process: the command line
    // beside the studio. Without it, the guard skips the device as before.
    const std::filesystem::path command_line = bps::app::ComparisonController::command_line_beside_studio();
    std::error_code missing;
    if (std::filesystem::is_regular_file(command_line, missing)) bps::device::check_builds_with(command_line);
    // The desktop entry's name, so that Wayland shells match the window to its entry and icon.
    QGuiApplication::setDesktopFileName("io.github.backpropstudio.BackpropStudio");
    QIcon icon;
    for (const int size : {32, 48, 64, 128, 256})
        icon.addFile(QString(":/icons/io.github.backpropstudio.BackpropStudio-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    follow_color_scheme(QGuiApplication::styleHints()->colorScheme());
    QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, &app, &follow_color_scheme);
#endif  // before 6.5 the platform palette is used as it is

    QCommandLineParser arguments;
    arguments.setApplicationDescription("Backprop Studio: build a network, pick a dataset and train it.");
    arguments.addHelpOption();
    arguments.addVersionOption();
    arguments.addPositionalArgument("file", "A project file (.json) to open.", "[file]");
    arguments.process(app);
    const QStringList files = arguments.positionalArguments();

    std::string warning;
    bps::ui::StartupFacts facts = bps::app::gather_startup_facts(warning);
    const std::vector<bps::device::DeviceDescription> devices = facts.devices;  // for the warm-up
    const std::size_t default_device = facts.default_device;
    bps::ui::MainWindow window(std::move(facts));
    // The panel asks; loading its samples and downloading, with its dialogs, happen here.
    bps::ui::DatasetPanel* dataset_panel = window.dataset_panel();
    bps::app::connect_sample_loading(dataset_panel);
    QObject::connect(dataset_panel, &bps::ui::DatasetPanel::downloadRequested, &window,
                     [&window, dataset_panel](int row) {
                         const bps::datasets::CatalogueEntry entry = dataset_panel->model()->entry(row);
                         const bps::app::DownloadOutcome outcome =
                             bps::app::run_download_dialog(&window, entry, dataset_panel->model()->user_root());
                         dataset_panel->refresh();
                         bps::app::show_download_outcome(&window, entry, outcome);
                     });
    // Train: the runs of a project not saved yet wait beside the recovery files until its first save.
    const QString unsaved_runs =
        QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/backprop-studio/unsaved-runs";
    bps::app::TrainingController training(&window, unsaved_runs.toStdString());
    // The Results and Try It tabs: a run's evaluation, images and predictor, read on a worker.
    bps::app::ResultsController results(&window, &training);
    bps::app::InsideController inside(&window, &training);
    // Compare Devices: its kept results live beside the studio's other data.
    const QString comparisons = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                                "/backprop-studio/device-comparisons.json";
    bps::app::ComparisonController comparison(&window, comparisons.toStdString(),
                                              bps::app::ComparisonController::command_line_beside_studio());
    // The Course tab and the Exercise dock: the course beside the studio, the progress in its data folder.
    bps::app::CourseController course(&window);
    bps::app::DeviceSelfTest self_test(window.device_panel());
    // Compare Devices lists the self-test too: the one run on the Devices tab reaches it.
    QObject::connect(&self_test, &bps::app::DeviceSelfTest::finished, window.comparison_panel(),
                     [&window](int device, const bps::device::SelfTestResult& result) {
                         window.comparison_panel()->show_self_test(static_cast<std::size_t>(device), result);
                     });
    comparison.busy_reason = [&training] {
        return training.running() ? QObject::tr(
                                        "A training run is using the devices: stop it first, so that the "
                                        "figures are the device's alone.")
                                  : QString();
    };
    window.start(files.isEmpty() ? QString() : files.front());
    window.show();
    if (!warning.empty()) bps::app::show_startup_warning(&window, warning);
    window.offer_recovery();
    // A logout, a shutdown or `kill` closes the window as Quit does (before the probe, whose first
    // answer tells a test that this is in place).
    bps::app::EndRequest end_request;
    QObject::connect(&end_request, &bps::app::EndRequest::requested, &window, &QWidget::close);
    // The scripted walkthrough's eyes (tests/walkthrough/), only when it asks for them.
    bps::app::UiProbe::from_environment(&window);
    // The default device's kernels and self-test, while the learner looks around: Train joins it.
    bps::app::KernelWarmUp warm_up(window.statusBar(), window.device_panel(), window.comparison_panel());
    warm_up.start(devices, default_device);
    const int status = QApplication::exec();
    // A build in progress ends within its program (a few seconds on a slow CPU), its mark removed.
    const bool warm_up_ended = warm_up.stop_and_wait(std::chrono::seconds(10));
    // A run the watchdog ended left its worker inside the driver: the driver's teardown at a
    // normal exit would wait for it for good. A comparison still running when the window closed
    // ends with the process (it may be waiting for a cold start's child for half a minute), and
    // its worker must not meet the engine's statics being destroyed. Everything is saved by now.
    // A Results or Try It job still running (a predictor building its kernels, an evaluation) ends
    // with the process too: what it writes is written atomically, so nothing is left half done.
    if (training.left_a_stuck_worker() || !warm_up_ended || comparison.running() || results.queue()->busy() ||
        course.queue()->busy())
        std::_Exit(status);
    return status;
}
