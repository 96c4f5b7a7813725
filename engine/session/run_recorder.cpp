#include "engine/session/run_recorder.h"

#include <cstdio>

namespace bps::session {

namespace {
constexpr const char* weights_name = "weights.h5";
constexpr const char* checkpoint_name = "checkpoint.h5";
}  // namespace

RunRecorder::RunRecorder(const std::filesystem::path& runs_folder, RunReceipt receipt) {
    record_.folder = create_run_folder(runs_folder, receipt.started_at);
    record_.receipt = std::move(receipt);
    write();
}

std::filesystem::path RunRecorder::weights_file() const {
    return record_.folder / weights_name;
}

std::filesystem::path RunRecorder::checkpoint_file() const {
    return record_.folder / checkpoint_name;
}

void RunRecorder::started(const RunFacts& facts) {
    RunReceipt& receipt = record_.receipt;
    receipt.device = facts.device.name;
    receipt.platform = facts.device.platform_name + " " + facts.device.platform_version;
    receipt.driver = facts.device.driver_version;
    receipt.training = facts.training;
    receipt.train_images = facts.train_images;
    receipt.validation_images = facts.validation_images;
    receipt.test_images = facts.test_images;
    evaluation_.class_names = facts.class_names;
}

BatchPoint RunRecorder::batch(const BatchReport& report) {
    const double images = report.images_per_second * report.epoch_seconds;
    double speed = report.images_per_second;
    if (report.epoch == speed_epoch_ && report.epoch_seconds > speed_seconds_)
        speed = (images - speed_images_) / (report.epoch_seconds - speed_seconds_);
    speed_epoch_ = report.epoch;
    speed_images_ = images;
    speed_seconds_ = report.epoch_seconds;
    const BatchPoint point{report.position(), report.recent_loss, report.recent_accuracy, report.learning_rate, speed};
    record_.history.batches.push_back(point);
    return point;
}

EpochPoint RunRecorder::epoch(const EpochReport& report) {
    EpochPoint point;
    point.position = report.epoch + 1.0;
    point.train_loss = report.train_loss;
    point.train_accuracy = report.train_accuracy;
    if (report.validation) {
        point.validation_loss = report.validation->loss;
        point.validation_accuracy = report.validation->accuracy;
    }
    record_.history.epochs.push_back(point);
    RunReceipt& receipt = record_.receipt;
    receipt.epochs_completed = report.epoch + 1;
    receipt.train_loss = report.train_loss;
    receipt.train_accuracy = report.train_accuracy;
    receipt.validation = report.validation;
    if (report.validation_confusion) evaluation_.validation.push_back({report.epoch + 1, *report.validation_confusion});
    return point;
}

void RunRecorder::mark(const RunMarker& marker) {
    record_.history.markers.push_back(marker);
}

void RunRecorder::finished(const JobResult& result) {
    RunReceipt& receipt = record_.receipt;
    receipt.outcome = !result.diverged.empty() ? "diverged" : result.stopped ? "stopped" : "finished";
    receipt.problem = result.diverged;
    receipt.epochs_completed = result.epochs_completed;
    receipt.test = result.test;
    receipt.seconds = result.seconds;
    if (!result.saved_to.empty()) receipt.weights_file = result.saved_to.filename().string();
    if (!result.class_names.empty()) evaluation_.class_names = result.class_names;
    evaluation_.test = result.test_samples;
}

void RunRecorder::failed(const JobFailure& failure) {
    RunReceipt& receipt = record_.receipt;
    receipt.outcome = "failed";
    receipt.problem = failure.message;
    receipt.epochs_completed = failure.epochs_completed;
    if (!failure.saved_to.empty()) receipt.weights_file = failure.saved_to.filename().string();
}

void RunRecorder::set_seconds(double seconds) {
    if (record_.receipt.seconds <= 0) record_.receipt.seconds = seconds;
}

std::string next_run_name(const std::vector<std::string>& names) {
    int highest = 0;
    for (const std::string& name : names) {
        int number = 0;
        if (std::sscanf(name.c_str(), "Run %d", &number) == 1 && number > highest) highest = number;
    }
    return "Run " + std::to_string(highest + 1);
}

void RunRecorder::write() const {
    write_run(record_);
    // Without class names (a run that failed while preparing) the matrices cannot be read.
    if (!evaluation_.class_names.empty() && (evaluation_.test || !evaluation_.validation.empty()))
        write_run_evaluation(record_.folder, evaluation_);
}

}  // namespace bps::session
