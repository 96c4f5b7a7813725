#pragma once
// The questions the window asks the learner (save unsaved changes? restore a crashed session?
// which file?) and how it reports a failure, as replaceable functions: the window calls these,
// dialog_prompts() answers them with real dialogs, and tests answer them in code (an offscreen
// test cannot click a modal dialog).
#include <QString>
#include <filesystem>
#include <functional>
#include <vector>

#include "ui/main_window/unsaved_runs_dialog.h"

class QWidget;

namespace bps::ui {

enum class UnsavedChoice { save, discard, cancel };

struct WindowPrompts {
    // "Save the changes to NAME?" before New, Open or closing throws them away.
    std::function<UnsavedChoice(const QString& name)> unsaved_changes;
    // "NAME was never saved, and its training runs are kept only with it. Save it?" (`question`)
    // before New, Open or closing would leave an unsaved project's runs behind.
    std::function<UnsavedChoice(const QString& question)> unsaved_runs;
    // "Restore unsaved changes to NAME from TIME?": true restores.
    std::function<bool(const QString& question)> restore_recovery;
    // "A run is training this project. Stop it?" before the project is replaced or the window
    // closes: true stops the run (its weights so far are kept).
    std::function<bool(const QString& question)> stop_run;
    // A file could not be opened or saved; the message names the file and the reason.
    std::function<void(const QString& message)> error;
    // A project to open, or empty when cancelled.
    std::function<QString()> open_path;
    // Where to save, starting from `suggested`, or empty when cancelled.
    std::function<QString(const QString& suggested)> save_path;
    // A checkpoint to resume training from, or empty when cancelled.
    std::function<QString()> checkpoint_path;
    // File ▸ Recover Unsaved Runs…: the folder of the unsaved project to open with its runs, or
    // empty when closed (UnsavedRunsDialog by default).
    std::function<std::filesystem::path(const std::vector<UnsavedProjectEntry>& projects)> recover_unsaved_runs;
    // Help ▸ About: `html` holds the version, the libraries and the kernel cache's folder.
    std::function<void(const QString& html)> about;
};

// Message boxes and file dialogs over `parent`.
WindowPrompts dialog_prompts(QWidget* parent);

}  // namespace bps::ui
