#pragma once
// The line over the curves that says what the run is doing, as Keras's progress line does: the
// stage as it happens ("Reading Fashion-MNIST 3/5", "Building kernels 7/11", "Training",
// "Evaluating the test images"), then during training a progress bar with the epoch, the batch,
// images/s and the time left; and under it, when something needs the learner, a message that says
// what happened and what to do (a failure, a divergence, a finished run's figures). Only shows
// values: the dashboard's controller hands it the run's reports.
#include <QString>
#include <QWidget>

#include "engine/session/training_job.h"

class QLabel;
class QProgressBar;

namespace bps::ui {

class RunStatus : public QWidget {
    Q_OBJECT
public:
    enum class Tone { information, success, warning, error };

    explicit RunStatus(QWidget* parent = nullptr);

    void show_stage(const session::StageReport& stage);
    void show_facts(const session::RunFacts& facts);
    void show_batch(const session::BatchReport& report);
    void show_epoch(const session::EpochReport& report);
    void show_finished(const session::JobResult& result);
    void show_failure(const session::JobFailure& failure);
    // A message of the window's own (a run that cannot start, a run folder that cannot be written).
    void show_message(const QString& headline, const QString& details, Tone tone);
    void clear_message();
    // Back to before any run (another project was opened): no stage, figures nor message.
    void reset();

    // What tests read, and the screenshot shows.
    QString stage_text() const;
    QString progress_text() const;
    // "1 min 10 s left" while training; empty while paused, before a run and after it.
    QString time_left_text() const;
    QString message_headline() const;
    QString message_details() const;
    Tone message_tone() const { return tone_; }
    QProgressBar* progress_bar() const { return progress_; }

    // "The device failed", "Out of device memory", ... for a failure's kind.
    static QString failure_headline(session::FailureKind kind);
    // "Stopped: test accuracy 84.2% from the weights at epoch 3, batch 5", or that the weights are kept.
    static QString stopped_headline(const session::JobResult& result);
    // "2 min 05 s" left for `done` of `total` images at `images_per_second`.
    static QString time_left(double remaining_images, double images_per_second);

private:
    QLabel* stage_;
    QProgressBar* progress_;
    QLabel* figures_;    // "epoch 2/5 · batch 310/844 · 1,250 images/s"
    QLabel* time_left_;  // "1 min 10 s left"
    QWidget* message_box_;
    QLabel* headline_;
    QLabel* details_;
    Tone tone_ = Tone::information;
    session::RunFacts facts_;
    bool has_facts_ = false;
    bool paused_ = false;
};

}  // namespace bps::ui
