#include "app/gui/startup_warning.h"

#include <QMessageBox>

namespace bps::app {

QMessageBox* show_startup_warning(QWidget* parent, const std::string& warning) {
    auto* box = new QMessageBox(QMessageBox::Warning, QObject::tr("OpenCL devices"), QString::fromStdString(warning),
                                QMessageBox::Ok, parent);
    box->setObjectName("startupWarning");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return box;
}

}  // namespace bps::app
