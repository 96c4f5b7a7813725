#pragma once
// One recorder for every run, the studio's and `backprop train`'s alike: it makes the run's folder
// beside the project (run_record.h), fills the receipt and the curves from the job's events, and
// writes the receipt, the history and the evaluation (run_evaluation.h), so that a course check or
// a teacher's script reads a CLI run exactly as it reads a studio run.
//
//     session::RunRecorder recorder(session::runs_folder_for(project_file), receipt);  // folder made, receipt written
//     setup.save_weights = recorder.weights_file();
//     setup.checkpoint = recorder.checkpoint_file();
//     events.started = [&](const RunFacts& facts) { recorder.started(facts); };
//     events.epoch = [&](const EpochReport& report) { recorder.epoch(report); recorder.write(); };
//     events.finished = [&](const JobResult& result) { recorder.finished(result); recorder.write(); };
//
// Not thread-safe: the job's events come one at a time, and the caller writes between them.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"
#include "engine/session/training_job.h"

namespace bps::session {

class RunRecorder {
public:
    // A new folder in `runs_folder` named after receipt.started_at, with the receipt written at
    // once, so that a run that crashes is still listed. Throws RunRecordError.
    RunRecorder(const std::filesystem::path& runs_folder, RunReceipt receipt);

    const RunRecord& record() const { return record_; }
    RunRecord& record() { return record_; }  // a rename, or a stop the recorder cannot hear
    const RunEvaluation& evaluation() const { return evaluation_; }
    // The run's folder, where the job keeps its epoch replays (JobSetup::replay_folder).
    std::filesystem::path folder() const { return record_.folder; }
    // Where the job saves into the run's folder (JobSetup::save_weights and ::checkpoint).
    std::filesystem::path weights_file() const;
    std::filesystem::path checkpoint_file() const;

    // Each returns what it added to the curves.
    void started(const RunFacts& facts);
    // The speed is the one since the previous report: the epoch's running figure would hide a
    // slow-down, and starts low while the first batch waits for its kernels.
    BatchPoint batch(const BatchReport& report);
    EpochPoint epoch(const EpochReport& report);
    void mark(const RunMarker& marker);
    // The end: outcome, figures, the weights kept, the test split's evaluation.
    void finished(const JobResult& result);
    void failed(const JobFailure& failure);
    // From the press of Train to the end, when the job did not say (a failure).
    void set_seconds(double seconds);

    // The receipt and the history, then the evaluation once there is one. Throws RunRecordError
    // naming the file that cannot be written; the files written before it stay.
    void write() const;

private:
    RunRecord record_;
    RunEvaluation evaluation_;
    int speed_epoch_ = -1;  // the previous batch report's epoch, images and seconds into it
    double speed_images_ = 0, speed_seconds_ = 0;
};

// "Run N" after the highest "Run M" among `names` (renamed runs do not count).
std::string next_run_name(const std::vector<std::string>& names);

}  // namespace bps::session
