#pragma once
// What `backprop predict` and `backprop inspect` share: the trained network named on the command
// line (a weights file alone, or a project with --weights) opened as a session::Predictor on the
// --device flag's device, else BACKPROP_DEVICE's, else the project's, else the best one.
#include <filesystem>
#include <optional>
#include <string>

#include "app/cli/project_argument.h"
#include "engine/session/predictor.h"

namespace bps::cli {

// Throws UsageError when no weights are given, io::WeightsFileError for weights that do not fit the
// project's network (naming the layer and both shapes), and what opening the device throws.
// Building the kernels on a cold cache takes a while: a terminal sees a line saying so.
session::Predictor open_predictor(const OpenedProject& opened, const std::optional<std::string>& weights_flag,
                                  const std::optional<std::string>& device_flag);

}  // namespace bps::cli
