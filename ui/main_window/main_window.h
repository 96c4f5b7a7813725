#pragma once
// The main window: one tab per panel (devices now; editor, training, datasets in later work)
// and a status bar that says what the learner has to work with.
#include <QMainWindow>
#include <string>
#include <vector>

#include "cl/device.h"

class QTabWidget;

namespace bps::ui {

class DevicePanel;

struct StartupFacts {
    std::vector<cl::DeviceInfo> devices;
    std::size_t default_device = 0;
    std::string device_problem;  // empty when the devices were found
    std::string dataset_status;  // e.g. "Fashion-MNIST: /usr/share/datasets/fashion-mnist"
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(StartupFacts facts, QWidget* parent = nullptr);

    DevicePanel* device_panel() const { return device_panel_; }
    QTabWidget* panels() const { return panels_; }

private:
    QTabWidget* panels_;
    DevicePanel* device_panel_;
};

}  // namespace bps::ui
