#include "ui/dashboard/run_receipt_text.h"

#include <QCoreApplication>
#include <QStringList>

#include "engine/base/number_text.h"
#include "ui/qt_text.h"

namespace bps::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("RunReceiptText", text);
}

QString rate(double value) {
    return text_of(session::format_rate(value));
}

QString receipt_percent(double fraction) {
    return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %");
}

QString evaluation_text(const session::Evaluation& evaluation) {
    return tr("accuracy %1, loss %2").arg(receipt_percent(evaluation.accuracy)).arg(evaluation.loss, 0, 'f', 4);
}

QString schedule_text(const project::TrainingSettings& training) {
    const train::Schedule& schedule = training.schedule;
    switch (schedule.kind) {
        case train::ScheduleKind::constant:
            return tr("constant");
        case train::ScheduleKind::step:
            return tr("step ×%1 every %2 epochs").arg(rate(schedule.gamma)).arg(schedule.step_size);
        case train::ScheduleKind::cosine:
            return tr("cosine to %1 over %2 epochs").arg(rate(schedule.min_rate)).arg(schedule.total_epochs);
    }
    return {};
}

}  // namespace

QString optimiser_name(const train::OptimizerSettings& optimiser) {
    switch (optimiser.kind) {
        case train::OptimizerKind::sgd:
            return optimiser.nesterov ? tr("SGD with Nesterov momentum") : tr("SGD");
        case train::OptimizerKind::adam:
            return tr("Adam");
        case train::OptimizerKind::adamw:
            return tr("AdamW");
    }
    return {};
}

QString learning_rate_text(const project::TrainingSettings& training) {
    const QString base = rate(training.optimizer.learning_rate);
    if (training.schedule.kind == train::ScheduleKind::constant) return base;
    return base + QStringLiteral(", ") + schedule_text(training);
}

QString receipt_text(const session::RunRecord& record) {
    const session::RunReceipt& receipt = record.receipt;
    const project::TrainingSettings& training = receipt.training;
    const train::OptimizerSettings& optimiser = training.optimizer;
    QStringList lines;
    auto line = [&](const QString& name, const QString& value) {
        if (!value.isEmpty()) lines << name + QStringLiteral(": ") + value;
    };
    line(tr("Run"), text_of(receipt.name));
    line(tr("Project"), text_of(receipt.project_name));
    QString started = text_of(receipt.started_at);
    started.replace(QLatin1Char('T'), QLatin1Char(' '));
    line(tr("Started"), started);
    QString outcome = text_of(receipt.outcome);
    if (!receipt.problem.empty()) outcome += QStringLiteral(" (") + text_of(receipt.problem) + QStringLiteral(")");
    line(tr("Outcome"), outcome);
    line(tr("Epochs"), tr("%1 of %2").arg(receipt.epochs_completed).arg(training.epochs));
    line(tr("Batch size"), QString::number(training.batch_size));
    QString optimiser_line = optimiser_name(optimiser);
    if (optimiser.kind == train::OptimizerKind::sgd)
        optimiser_line += tr(", momentum %1").arg(rate(optimiser.momentum));
    else
        optimiser_line +=
            tr(", β1 %1, β2 %2, ε %3").arg(rate(optimiser.beta1), rate(optimiser.beta2), rate(optimiser.epsilon));
    optimiser_line += tr(", weight decay %1").arg(rate(optimiser.weight_decay));
    line(tr("Optimiser"), optimiser_line);
    line(tr("Learning rate"), rate(optimiser.learning_rate));
    line(tr("Schedule"), schedule_text(training));
    line(tr("Seed"), QString::number(training.seed));
    const project::DatasetSettings& dataset = receipt.dataset;
    line(tr("Dataset"), text_of(dataset.folder.empty() ? dataset.name : dataset.folder));
    QStringList data;
    data << tr("validation %1").arg(receipt_percent(dataset.validation_fraction));
    data << (dataset.normalize ? tr("normalised") : tr("not normalised"));
    if (dataset.augmentation.random_crop) data << tr("random crop (%1 px)").arg(dataset.augmentation.crop_padding);
    if (dataset.augmentation.horizontal_flip) data << tr("horizontal flip");
    line(tr("Data"), data.join(QStringLiteral(", ")));
    if (receipt.train_images || receipt.validation_images || receipt.test_images)
        line(tr("Images"), tr("%1 training, %2 validation, %3 test")
                               .arg(text_of(session::format_thousands(receipt.train_images)),
                                    text_of(session::format_thousands(receipt.validation_images)),
                                    text_of(session::format_thousands(receipt.test_images))));
    QString device = text_of(receipt.device);
    if (!receipt.driver.empty()) device += tr(" (driver %1)").arg(text_of(receipt.driver));
    line(tr("Device"), device);
    if (receipt.train_loss && receipt.train_accuracy)
        line(tr("Training"), tr("accuracy %1, loss %2")
                                 .arg(receipt_percent(*receipt.train_accuracy))
                                 .arg(*receipt.train_loss, 0, 'f', 4));
    if (receipt.validation) line(tr("Validation"), evaluation_text(*receipt.validation));
    if (receipt.test) line(tr("Test"), evaluation_text(*receipt.test));
    line(tr("Duration"), text_of(session::format_duration(receipt.seconds)));
    line(tr("Studio version"), text_of(receipt.app_version));
    line(tr("Folder"), QString::fromStdWString(record.folder.wstring()));
    return lines.join(QLatin1Char('\n'));
}

}  // namespace bps::ui
