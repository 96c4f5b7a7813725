#pragma once
// A run's receipt (its recorded settings and outcome) in a learner's words: short cells for the run
// list's settings columns ("0.01", "Adam") and the whole receipt, one fact a line, for a row's
// tooltip, so that two runs can be told apart without opening their folders.
#include <QString>

#include "engine/runs/run_record.h"

namespace bps::ui {

// "SGD", "SGD with Nesterov momentum", "Adam", "AdamW".
QString optimiser_name(const train::OptimizerSettings& optimiser);
// "0.01", with the schedule when the rate changes during the run: "0.1, step ×0.1 every 2 epochs".
QString learning_rate_text(const project::TrainingSettings& training);
// Every setting and figure the receipt holds, one "Name: value" a line.
QString receipt_text(const session::RunRecord& record);

}  // namespace bps::ui
