#pragma once
// The runs of a project, kept beside its file: one folder per run with its receipt (what was
// trained, how, on what, and how it ended), its curves and its weights. The studio's run list
// reads them back to overlay runs; nothing here needs Qt or a device.
//
//     cnn.json
//     cnn.runs/
//         2026-11-23_18-42-15/   receipt.json  history.json  weights.h5
//
// Saves are atomic (a temporary file, then a rename), so a crash never leaves half a receipt.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/project/project.h"
#include "engine/runs/reports.h"

namespace bps::session {

// One point of the batch curves. `position` is in epochs, fractional: epoch + batch / batches.
struct BatchPoint {
    double position = 0;
    double loss = 0;      // the mean over the batches since the previous point (the raw curve)
    double accuracy = 0;  // the same
    double learning_rate = 0;
    double images_per_second = 0;
};

// One point per finished epoch, at position epoch + 1.
struct EpochPoint {
    double position = 0;
    double train_loss = 0, train_accuracy = 0;
    std::optional<double> validation_loss, validation_accuracy;
};

// Where something changed during the run: "learning rate 0.01 → 0.003", "paused".
struct RunMarker {
    double position = 0;
    std::string text;
};

struct RunHistory {
    std::vector<BatchPoint> batches;
    std::vector<EpochPoint> epochs;
    std::vector<RunMarker> markers;
};

struct RunReceipt {
    std::string name;        // the learner's name for the run: "Run 3" until renamed
    std::string started_at;  // local time, ISO 8601: "2026-11-23T18:42:15"
    double seconds = 0;      // from the press of Train to the end
    std::string app_version;
    std::string project_name;
    project::TrainingSettings training;  // with the run's own learning rate at its start
    project::DatasetSettings dataset;
    std::string device, platform, driver;
    std::size_t train_images = 0, validation_images = 0, test_images = 0;
    // "finished", "stopped", "diverged" or "failed"; `problem` says what went wrong.
    std::string outcome;
    std::string problem;
    int epochs_completed = 0;
    std::optional<double> train_loss, train_accuracy;  // the last finished epoch's
    std::optional<Evaluation> validation, test;
    std::string weights_file;  // inside the run folder ("weights.h5"); empty when none was saved
};

struct RunRecord {
    std::filesystem::path folder;  // the run's folder; its name is the run's id
    RunReceipt receipt;
    RunHistory history;
    std::string id() const { return folder.filename().string(); }
    // The weights file's full path, or empty when the run kept none.
    std::filesystem::path weights() const;
};

// A run folder or file that cannot be read or written; what() names the file.
class RunRecordError : public std::runtime_error {
public:
    RunRecordError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

// "<folder>/<stem>.runs" for "<folder>/<stem>.json".
std::filesystem::path runs_folder_for(const std::filesystem::path& project_file);

// A new, empty run folder inside `runs_folder` (created if missing), named after `started_at`
// ("2026-11-23_18-42-15", with "-2", "-3" appended when taken). Throws RunRecordError when it
// cannot be created.
std::filesystem::path create_run_folder(const std::filesystem::path& runs_folder, const std::string& started_at);

// Writes receipt.json and history.json into record.folder, atomically each.
void write_run(const RunRecord& record);
// Reads a run folder back. Throws RunRecordError naming the damaged or missing file.
RunRecord read_run(const std::filesystem::path& folder);
// Every readable run in `runs_folder`, oldest first (by started_at, then id); damaged ones are
// skipped and named in `problems` ("FILE: problem"). A missing folder has no runs.
std::vector<RunRecord> list_runs(const std::filesystem::path& runs_folder,
                                 std::vector<std::string>* problems = nullptr);
// Only the receipt's name changes on disk.
void rename_run(const std::filesystem::path& folder, const std::string& name);
// Removes the run's folder and everything in it.
void delete_run(const std::filesystem::path& folder);

// The history as CSV, one row per batch point then one per epoch point:
// "run,kind,epoch,loss,accuracy,learning_rate,images_per_second,validation_loss,validation_accuracy".
std::string history_csv(const std::string& run_name, const RunHistory& history);

}  // namespace bps::session
