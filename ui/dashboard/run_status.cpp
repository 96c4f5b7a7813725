#include "ui/dashboard/run_status.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/base/number_text.h"
#include "ui/qt_text.h"

namespace bps::ui {

namespace {

// A learner's sentence from the engine's phrase: "building kernels" -> "Building kernels".
QString capitalised(QString text) {
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    return text;
}

QString tone_style(RunStatus::Tone tone) {
    switch (tone) {
        case RunStatus::Tone::information:
            return "background: palette(alternate-base); border-left: 4px solid #4e79a7;";
        case RunStatus::Tone::success:
            return "background: palette(alternate-base); border-left: 4px solid #59a14f;";
        case RunStatus::Tone::warning:
            return "background: palette(alternate-base); border-left: 4px solid #f28e2b;";
        case RunStatus::Tone::error:
            return "background: palette(alternate-base); border-left: 4px solid #e15759;";
    }
    return {};
}

QString status_percent(double fraction) {
    return QString::number(fraction * 100.0, 'f', 1) + "%";
}

}  // namespace

RunStatus::RunStatus(QWidget* parent)
    : QWidget(parent),
      stage_(new QLabel(tr("Press Train to start a run."), this)),
      progress_(new QProgressBar(this)),
      figures_(new QLabel(this)),
      time_left_(new QLabel(this)),
      message_box_(new QWidget(this)),
      headline_(new QLabel(message_box_)),
      details_(new QLabel(message_box_)) {
    setObjectName("runStatus");
    stage_->setObjectName("runStage");
    progress_->setObjectName("runProgress");
    figures_->setObjectName("runFigures");
    // A long line of figures must not widen the window's middle and squeeze the docks: it is
    // cut instead, and its tooltip holds all of it.
    figures_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    figures_->setMinimumWidth(120);
    time_left_->setObjectName("runTimeLeft");
    message_box_->setObjectName("runMessage");
    headline_->setObjectName("runMessageHeadline");
    details_->setObjectName("runMessageDetails");
    QFont bold = stage_->font();
    bold.setBold(true);
    stage_->setFont(bold);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(true);
    progress_->setFormat(QString());

    auto* top = new QHBoxLayout;
    top->addWidget(stage_);
    top->addWidget(progress_, 2);
    top->addWidget(figures_, 3);
    top->addWidget(time_left_);

    headline_->setFont(bold);
    headline_->setWordWrap(true);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dismiss = new QPushButton(tr("Dismiss"), message_box_);
    dismiss->setObjectName("dismissMessage");
    dismiss->setFlat(true);
    connect(dismiss, &QPushButton::clicked, this, &RunStatus::clear_message);
    auto* message_layout = new QHBoxLayout(message_box_);
    auto* message_text = new QVBoxLayout;
    message_text->addWidget(headline_);
    message_text->addWidget(details_);
    message_layout->addLayout(message_text, 1);
    message_layout->addWidget(dismiss, 0, Qt::AlignTop);
    message_box_->setAttribute(Qt::WA_StyledBackground);
    message_box_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(top);
    layout->addWidget(message_box_);
}

void RunStatus::show_stage(const session::StageReport& stage) {
    using session::Stage;
    QString text;
    // A paused run's speed counts the pause, so its time left only grows: none is shown.
    paused_ = stage.stage == Stage::paused;
    if (paused_) time_left_->clear();
    switch (stage.stage) {
        case Stage::preparing:
            text = capitalised(text_of(stage.activity.empty() ? std::string("preparing") : stage.activity));
            if (stage.total > 0) text += QString(" %1/%2").arg(stage.done).arg(stage.total);
            progress_->setValue(stage.total > 0 ? static_cast<int>(1000 * stage.done / stage.total) : 0);
            // A counted stage fills the bar; an uncounted one shows Qt's busy indicator.
            progress_->setRange(0, stage.total > 0 ? 1000 : 0);
            break;
        case Stage::running:
            text = tr("Training");
            progress_->setRange(0, 1000);
            break;
        case Stage::paused:
            text = tr("Paused");
            if (!stage.activity.empty())
                show_message(tr("The training diverged, so the run is paused"),
                             capitalised(text_of(stage.activity)) +
                                 tr(". The weights went back to the last ones known to be finite: lower the "
                                    "learning rate and resume, or stop to keep them."),
                             Tone::warning);
            break;
        case Stage::evaluating:
            text = tr("Evaluating the %1").arg(text_of(stage.activity));
            break;
        case Stage::finished:
            text = tr("Finished");
            progress_->setRange(0, 1000);
            break;
        case Stage::failed:
            text = tr("Failed");
            progress_->setRange(0, 1000);
            break;
    }
    stage_->setText(text);
}

void RunStatus::show_facts(const session::RunFacts& facts) {
    facts_ = facts;
    has_facts_ = true;
    clear_message();
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    QString about = tr("%1 on %2: %3 training, %4 validation, %5 test images")
                        .arg(text_of(facts.data_title), text_of(facts.device.name),
                             text_of(session::format_thousands(facts.train_images)),
                             text_of(session::format_thousands(facts.validation_images)),
                             text_of(session::format_thousands(facts.test_images)));
    if (!facts.skipped_images.empty())
        about += tr("; %1 unreadable images skipped (the first: %2)")
                     .arg(facts.skipped_images.size())
                     .arg(text_of(facts.skipped_images.front()));
    figures_->setText(about);
    figures_->setToolTip(about);
}

QString RunStatus::time_left(double remaining_images, double images_per_second) {
    if (images_per_second <= 0 || !std::isfinite(images_per_second)) return tr("estimating");
    return text_of(session::format_duration(std::max(remaining_images, 0.0) / images_per_second));
}

void RunStatus::show_batch(const session::BatchReport& report) {
    const double batches = static_cast<double>(std::max<std::size_t>(report.batches, 1));
    const double epochs = static_cast<double>(std::max(report.epochs, 1));
    const double done = report.position() / epochs;
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(std::lround(std::clamp(done, 0.0, 1.0) * 1000)));
    progress_->setFormat(QString("%1").arg(status_percent(done)));
    // Images still to train: the rest of this epoch and the epochs after it.
    const double images_per_batch = has_facts_ && report.batches > 0
                                        ? static_cast<double>(facts_.train_images) / batches
                                        : static_cast<double>(std::max(facts_.training.batch_size, 1));
    const double remaining_batches =
        (epochs - static_cast<double>(report.epoch) - 1) * batches + (batches - static_cast<double>(report.batch));
    const QString position =
        tr("epoch %1/%2 · batch %3/%4").arg(report.epoch + 1).arg(report.epochs).arg(report.batch).arg(report.batches);
    // A Step while paused: where the run is, no speed and no time left (both would count the pause).
    if (paused_) {
        figures_->setText(position + tr(" · paused"));
        time_left_->clear();
        return;
    }
    figures_->setText(position + tr(" · %1 images/s")
                                     .arg(text_of(session::format_thousands(static_cast<std::uint64_t>(
                                         std::llround(std::max(report.images_per_second, 0.0)))))));
    time_left_->setText(tr("%1 left").arg(time_left(remaining_batches * images_per_batch, report.images_per_second)));
}

void RunStatus::show_epoch(const session::EpochReport& report) {
    QString text = tr("epoch %1/%2: loss %3, accuracy %4")
                       .arg(report.epoch + 1)
                       .arg(report.epochs)
                       .arg(report.train_loss, 0, 'f', 4)
                       .arg(status_percent(report.train_accuracy));
    if (report.validation)
        text += tr(" · validation loss %1, accuracy %2")
                    .arg(report.validation->loss, 0, 'f', 4)
                    .arg(status_percent(report.validation->accuracy));
    figures_->setToolTip(text);
}

void RunStatus::show_finished(const session::JobResult& result) {
    progress_->setFormat(QString());
    time_left_->clear();
    paused_ = false;
    if (!result.diverged.empty()) {
        stage_->setText(tr("Diverged"));
        QString kept;
        if (!result.saved_to.empty() && result.kept_after_batches)
            kept = tr(" The weights from before it diverged (after %n batch(es)) are kept with the run.", nullptr,
                      static_cast<int>(*result.kept_after_batches));
        show_message(tr("The run stopped after the training diverged"),
                     capitalised(text_of(result.diverged)) + "." + kept, Tone::warning);
        return;
    }
    if (!result.training_began) {
        show_message(tr("The run stopped before training began"), tr("Nothing was trained or saved."),
                     Tone::information);
        return;
    }
    // The run is over: its last progress line would read as a run still going.
    figures_->clear();
    if (result.stopped) stage_->setText(tr("Stopped"));
    const QString duration = text_of(session::format_duration(result.seconds));
    QString details = result.epochs_completed == 0
                          ? tr("Stopped in its first epoch, after %1.").arg(duration)
                          : tr("%n epoch(s) in %1.", nullptr, result.epochs_completed).arg(duration);
    if (result.test)
        details += tr(" Test accuracy %1 (loss %2) on %3 images.")
                       .arg(status_percent(result.test->accuracy))
                       .arg(result.test->loss, 0, 'f', 4)
                       .arg(text_of(session::format_thousands(result.test->samples)));
    if (!result.saved_to.empty()) details += tr(" The weights are kept with the run: export them from the run list.");
    show_message(result.stopped ? stopped_headline(result) : tr("Training finished"), details, Tone::success);
}

QString RunStatus::stopped_headline(const session::JobResult& result) {
    if (!result.test) return tr("Stopped: the weights trained so far are kept");
    // The weights tested are those of the moment it stopped (JobSetup::test_when_stopped).
    const QString where = result.stopped_after_batches == 0
                              ? tr("at the end of epoch %1").arg(result.epochs_completed)
                              : tr("at epoch %1, batch %2")
                                    .arg(result.stopped_in_epoch + 1)
                                    .arg(static_cast<qulonglong>(result.stopped_after_batches));
    return tr("Stopped: test accuracy %1 from the weights %2").arg(status_percent(result.test->accuracy), where);
}

QString RunStatus::failure_headline(session::FailureKind kind) {
    using session::FailureKind;
    switch (kind) {
        case FailureKind::project:
            return tr("The network cannot train on this data");
        case FailureKind::data:
            return tr("The dataset cannot be read");
        case FailureKind::file:
            return tr("A file cannot be read or written");
        case FailureKind::no_device:
            return tr("No OpenCL device is installed");
        case FailureKind::device:
            return tr("The device failed");
        case FailureKind::out_of_device_memory:
            return tr("Out of device memory");
        case FailureKind::diverged:
            return tr("The training diverged");
        case FailureKind::internal:
            return tr("The run failed");
    }
    return tr("The run failed");
}

void RunStatus::show_failure(const session::JobFailure& failure) {
    progress_->setFormat(QString());
    figures_->clear();
    time_left_->clear();
    paused_ = false;
    progress_->setRange(0, 1000);
    QString details = capitalised(text_of(failure.message));
    if (!details.endsWith('.')) details += '.';
    if (failure.kind == session::FailureKind::project && !failure.layer.empty())
        details += tr(" The Problems dock shows it on layer '%1'.").arg(text_of(failure.layer));
    if (failure.kind == session::FailureKind::device)
        details += tr(" Try the run again, or choose another device in the Train panel.");
    show_message(failure_headline(failure.kind), details, Tone::error);
}

void RunStatus::show_message(const QString& headline, const QString& details, Tone tone) {
    tone_ = tone;
    headline_->setText(headline);
    details_->setText(details);
    details_->setVisible(!details.isEmpty());
    message_box_->setStyleSheet("#runMessage { " + tone_style(tone) + " }");
    message_box_->show();
}

void RunStatus::clear_message() {
    headline_->clear();
    details_->clear();
    message_box_->hide();
}

void RunStatus::reset() {
    stage_->setText(tr("Press Train to start a run."));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setFormat(QString());
    figures_->clear();
    figures_->setToolTip(QString());
    time_left_->clear();
    clear_message();
    facts_ = {};
    has_facts_ = false;
    paused_ = false;
}

QString RunStatus::time_left_text() const {
    return time_left_->text();
}

QString RunStatus::stage_text() const {
    return stage_->text();
}
QString RunStatus::progress_text() const {
    return figures_->text();
}
QString RunStatus::message_headline() const {
    return message_box_->isHidden() ? QString() : headline_->text();
}
QString RunStatus::message_details() const {
    return message_box_->isHidden() ? QString() : details_->text();
}

}  // namespace bps::ui
