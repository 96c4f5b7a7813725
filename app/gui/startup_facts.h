#pragma once
// What the window needs at start-up, gathered from the engine: the devices, the default one
// (BACKPROP_DEVICE honoured) and whether the default dataset is installed.
#include <string>

#include "ui/main_window/main_window.h"

namespace bps::app {

// warning: set to a text the learner must see in a dialog (no OpenCL, an unknown
// BACKPROP_DEVICE); the window opens either way.
ui::StartupFacts gather_startup_facts(std::string& warning);

}  // namespace bps::app
