// backprop-studio: the Qt window. Discovery runs in the engine; the ui only shows the result.
#include <QApplication>

#include "cl/cache_location.h"
#include "gui/startup_facts.h"
#include "gui/startup_warning.h"
#include "main_window/main_window.h"

int main(int argc, char** argv) {
    bps::cl::point_vendor_caches_into_cache_root();  // before the first OpenCL call
    QApplication app(argc, argv);
    QApplication::setApplicationName("Backprop Studio");
    QApplication::setOrganizationName("Backprop Studio");

    std::string warning;
    bps::ui::MainWindow window(bps::app::gather_startup_facts(warning));
    window.show();
    if (!warning.empty()) bps::app::show_startup_warning(&window, warning);
    return QApplication::exec();
}
