// backprop-studio: the Qt window. Discovery runs in the engine; the ui only shows the result.
#include <QApplication>

#include "app/gui/dataset_download.h"
#include "app/gui/dataset_loading.h"
#include "app/gui/startup_facts.h"
#include "app/gui/startup_warning.h"
#include "engine/device/device_description.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/main_window/main_window.h"

int main(int argc, char** argv) {
    bps::device::point_driver_caches_beside_ours();  // before the first OpenCL call
    QApplication app(argc, argv);
    QApplication::setApplicationName("Backprop Studio");
    QApplication::setOrganizationName("Backprop Studio");

    std::string warning;
    bps::ui::MainWindow window(bps::app::gather_startup_facts(warning));
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
    window.show();
    if (!warning.empty()) bps::app::show_startup_warning(&window, warning);
    return QApplication::exec();
}
