#include "app/gui/unsaved_projects.h"

#include <QDateTime>
#include <QLocale>
#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "engine/runs/checkpoint.h"
#include "engine/runs/run_record.h"
#include "engine/runs/saved_weights.h"

namespace bps::app {

namespace fs = std::filesystem;

void keep_unsaved_project(const fs::path& folder, const project::Project& project) {
    fs::create_directories(folder);
    project::save_project(folder / unsaved_project_file, project);
}

std::vector<ui::UnsavedProjectEntry> list_unsaved_projects(const fs::path& root, const fs::path& except) {
    struct Found {
        ui::UnsavedProjectEntry entry;
        std::string newest;  // ISO time of the newest run, to sort by
    };
    std::vector<Found> found;
    std::error_code error;
    if (!fs::is_directory(root, error)) return {};
    for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
        std::error_code ignored;
        if (!entry.is_directory(ignored)) continue;
        if (!except.empty() && fs::equivalent(entry.path(), except, ignored)) continue;
        const std::vector<session::RunRecord> runs = session::list_runs(entry.path());
        if (runs.empty()) continue;
        const session::RunRecord& newest = runs.back();  // list_runs sorts by start
        Found item;
        item.entry.folder = entry.path();
        item.entry.runs = static_cast<int>(runs.size());
        item.newest = newest.receipt.started_at;
        std::string name = newest.receipt.project_name;
        try {
            const project::Project project = project::read_project(entry.path() / unsaved_project_file);
            if (!project.name.empty()) name = project.name;
        } catch (const std::exception&) {
            // No project.json (an older studio's folder): the receipt's name.
        }
        item.entry.name = name.empty() ? QObject::tr("Untitled") : QString::fromStdString(name);
        const QDateTime when = QDateTime::fromString(QString::fromStdString(item.newest), Qt::ISODate);
        item.entry.last_run =
            when.isValid() ? QLocale().toString(when, QLocale::ShortFormat) : QString::fromStdString(item.newest);
        found.push_back(std::move(item));
    }
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.newest > b.newest; });
    std::vector<ui::UnsavedProjectEntry> entries;
    for (Found& item : found) entries.push_back(std::move(item.entry));
    return entries;
}

project::Project read_unsaved_project(const fs::path& folder) {
    std::error_code error;
    if (fs::exists(folder / unsaved_project_file, error)) return project::read_project(folder / unsaved_project_file);
    std::vector<session::RunRecord> runs = session::list_runs(folder);
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
        for (const char* name : {"checkpoint.h5", "weights.h5"}) {
            const fs::path file = run->folder / name;
            if (!fs::exists(file, error)) continue;
            try {
                return session::project_of(session::read_saved_weights(file));
            } catch (const std::exception&) {
                // Damaged or unreadable: the next file, the next run.
            }
        }
    }
    throw std::runtime_error(folder.string() + ": no project was kept with these runs");
}

}  // namespace bps::app
