#pragma once
// `backprop bench` keeps each network and batch size it ran in the device comparison history,
// the same file the studio's Compare Devices panel reads, so a bench run shows up there.
#include <filesystem>
#include <vector>

#include "engine/compare/comparison_history.h"

namespace bps::cli {

// The studio's history: device-comparisons.json in its per-user data folder.
std::filesystem::path default_comparison_history();

// Before the run, so that nothing measured is lost at its end: the history must not be one of the
// run's own project files (`inputs`), and a file given with --history (`given`) that exists must be
// a comparison history (a file of another kind is never moved aside as damaged) in a folder that
// takes a new file. Throws UsageError naming the file and why.
void check_history_destination(const std::filesystem::path& file, const std::vector<std::filesystem::path>& inputs,
                               bool given);

// Adds the records to the history in `file` and says so on stderr. A damaged history is moved
// aside first, as the studio does; a history that cannot be kept is named with why, and the run's
// figures (already printed) stand: nothing throws.
void keep_in_comparison_history(const std::filesystem::path& file, const std::vector<bench::ComparisonRecord>& records);

}  // namespace bps::cli
