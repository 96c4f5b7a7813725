#include "ui/main_window/main_window.h"

#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>

#include "ui/datasets/dataset_panel.h"
#include "ui/devices/device_panel.h"

namespace bps::ui {

MainWindow::MainWindow(StartupFacts facts, QWidget* parent)
    : QMainWindow(parent),
      panels_(new QTabWidget(this)),
      device_panel_(new DevicePanel(std::move(facts.devices), facts.default_device, facts.device_problem, panels_)),
      dataset_panel_(new DatasetPanel(std::move(facts.dataset_catalogue), std::move(facts.data_root), panels_)) {
    setWindowTitle(tr("Backprop Studio"));
    setObjectName("mainWindow");
    panels_->setObjectName("panels");
    panels_->addTab(device_panel_, tr("Devices"));
    panels_->addTab(dataset_panel_, tr("Datasets"));
    setCentralWidget(panels_);
    auto* dataset = new QLabel(QString::fromStdString(facts.dataset_status), this);
    dataset->setObjectName("datasetStatus");
    statusBar()->addWidget(dataset, 1);
    resize(1100, 480);
}

}  // namespace bps::ui
