#pragma once
// The runs of projects never saved: the training controller keeps each such project's runs in a
// folder of its own under the studio's data folder (unsaved_runs_root), with the project as it was
// last trained (project.json) beside them, so File ▸ Recover Unsaved Runs… can list them and open
// the project again with its runs.
#include <filesystem>
#include <vector>

#include "engine/project/project.h"
#include "ui/main_window/unsaved_runs_dialog.h"

namespace bps::app {

// The file in an unsaved project's runs folder that holds the project last trained there.
inline constexpr const char* unsaved_project_file = "project.json";

// Writes `project` into `folder` (made if needed) as the project its runs came from; throws
// std::exception on failure.
void keep_unsaved_project(const std::filesystem::path& folder, const project::Project& project);

// The folders under `root` that hold at least one run, newest run first, except `except` (the
// current project's folder). Unreadable runs are left out.
std::vector<ui::UnsavedProjectEntry> list_unsaved_projects(const std::filesystem::path& root,
                                                           const std::filesystem::path& except = {});

// The project whose runs `folder` holds: its project.json, else the project inside the newest
// run's checkpoint or weights (folders kept before project.json was written). Throws
// std::exception with the reason when there is none.
project::Project read_unsaved_project(const std::filesystem::path& folder);

}  // namespace bps::app
