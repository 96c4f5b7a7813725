#pragma once
// The dialog that tells the learner what is wrong at start-up (no OpenCL driver, an unknown
// BACKPROP_DEVICE) over the open window, instead of crashing or failing silently.
#include <string>

class QMessageBox;
class QWidget;

namespace bps::app {

// Opens a window-modal warning over parent and returns it (owned by parent, deleted on close).
QMessageBox* show_startup_warning(QWidget* parent, const std::string& warning);

}  // namespace bps::app
