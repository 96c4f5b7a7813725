#pragma once
// The main window: one tab per panel (devices and datasets now; editor, training in later work)
// and a status bar that says what the learner has to work with.
#include <QMainWindow>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/catalogue.h"
#include "engine/device/device_description.h"

class QTabWidget;

namespace bps::ui {

class DatasetPanel;
class DevicePanel;

struct StartupFacts {
    std::vector<device::DeviceDescription> devices;
    std::size_t default_device = 0;
    std::string device_problem;  // empty when the devices were found
    std::string dataset_status;  // e.g. "Fashion-MNIST: /usr/share/datasets/fashion-mnist"
    // The Datasets tab's rows, and the folder downloads go to.
    std::vector<datasets::CatalogueEntry> dataset_catalogue;
    std::filesystem::path data_root;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(StartupFacts facts, QWidget* parent = nullptr);

    DevicePanel* device_panel() const { return device_panel_; }
    DatasetPanel* dataset_panel() const { return dataset_panel_; }
    QTabWidget* panels() const { return panels_; }

private:
    QTabWidget* panels_;
    DevicePanel* device_panel_;
    DatasetPanel* dataset_panel_;
};

}  // namespace bps::ui
