// File ▸ Recover Unsaved Runs…: a project trained and never saved keeps its runs in the studio's
// data folder; this lists those projects and opens the one picked, with its runs, as an unsaved
// project (Save then moves its runs beside the project file).
#include "ui/main_window/main_window.h"

namespace bps::ui {

bool MainWindow::recover_unsaved_runs() {
    std::vector<UnsavedProjectEntry> projects;
    if (list_unsaved_projects) projects = list_unsaved_projects();
    if (!prompts_.recover_unsaved_runs) return false;
    const std::filesystem::path folder = prompts_.recover_unsaved_runs(projects);
    if (folder.empty() || !open_unsaved_project) return false;
    return open_unsaved_project(folder);
}

}  // namespace bps::ui
