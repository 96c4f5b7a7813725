#include "ui/main_window/window_prompts.h"

#include <QApplication>
#include <QFileDialog>
#include <QMessageBox>

#include "ui/dialog_folder.h"

namespace bps::ui {

namespace {

QString filter() {
    return QObject::tr("Projects (*.json)");
}

// Save, Discard or Cancel, Save by default.
UnsavedChoice save_discard_or_cancel(QWidget* parent, const QString& title, const QString& question,
                                     const QString& details) {
    QMessageBox box(QMessageBox::Warning, title, question,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setInformativeText(details);
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
        case QMessageBox::Save:
            return UnsavedChoice::save;
        case QMessageBox::Discard:
            return UnsavedChoice::discard;
        default:
            return UnsavedChoice::cancel;
    }
}

}  // namespace

WindowPrompts dialog_prompts(QWidget* parent) {
    WindowPrompts prompts;
    prompts.unsaved_changes = [parent](const QString& name) {
        return save_discard_or_cancel(parent, QObject::tr("Unsaved changes"),
                                      QObject::tr("Save the changes to %1?").arg(name),
                                      QObject::tr("Your changes are lost if you do not save them."));
    };
    prompts.unsaved_runs = [parent](const QString& question) {
        return save_discard_or_cancel(
            parent, QObject::tr("Unsaved project with runs"), question,
            QObject::tr("Saving the project keeps its runs beside it. If you do not save it, its runs stay in the "
                        "studio's data folder: File ▸ Recover Unsaved Runs… opens the project again with them."));
    };
    prompts.recover_unsaved_runs = [parent](const std::vector<UnsavedProjectEntry>& projects) {
        return UnsavedRunsDialog::choose(parent, projects);
    };
    prompts.restore_recovery = [parent](const QString& question) {
        return QMessageBox::question(parent, QObject::tr("Restore unsaved changes"), question,
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    };
    prompts.stop_run = [parent](const QString& question) {
        return QMessageBox::question(parent, QObject::tr("Stop the run?"), question,
                                     QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
    };
    prompts.about = [parent](const QString& html) {
        QMessageBox box(QMessageBox::NoIcon, QObject::tr("About Backprop Studio"), html, QMessageBox::Ok, parent);
        // A learner reporting a problem copies these lines.
        box.setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        box.setIconPixmap(QApplication::windowIcon().pixmap(64, 64));
        box.exec();
    };
    prompts.error = [parent](const QString& message) {
        QMessageBox::warning(parent, QObject::tr("Backprop Studio"), message);
    };
    prompts.open_path = [parent] {
        // A weights file or checkpoint carries the project it was trained from, so it opens too.
        return QFileDialog::getOpenFileName(
            parent, QObject::tr("Open project"), dialog_folder(parent),
            QObject::tr("Projects, weights and checkpoints (*.json *.h5);;Projects (*.json);;Weights and "
                        "checkpoints (*.h5)"));
    };
    prompts.checkpoint_path = [parent] {
        return QFileDialog::getOpenFileName(parent, QObject::tr("Resume training from a checkpoint"),
                                            dialog_folder(parent), QObject::tr("Checkpoints (*.h5)"));
    };
    prompts.save_path = [parent](const QString& suggested) {
        QFileDialog dialog(parent, QObject::tr("Save project as"), suggested, filter());
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix("json");  // before the overwrite question, so it asks about the real file
        if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return QString();
        return dialog.selectedFiles().front();
    };
    return prompts;
}

}  // namespace bps::ui
