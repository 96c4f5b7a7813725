// RunList's exports: a run's weights as they are, its network as a Python script that predicts
// or trains (engine/runs/code_export.h, engine/runs/training_script.h) with the weights beside it,
// or as an ONNX model (engine/runs/onnx_export.h). Every file is written whole (QSaveFile), and no
// export replaces a file the project keeps (refuse_kept_file).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include "engine/base/same_file.h"
#include "engine/runs/code_export.h"
#include "engine/runs/onnx_export.h"
#include "engine/runs/saved_weights.h"
#include "engine/runs/training_script.h"
#include "ui/dashboard/run_list.h"
#include "ui/dialog_folder.h"
#include "ui/qt_text.h"

namespace bps::ui {

namespace {

// "Run 3" -> "Run 3.h5" beside the project; characters no file system accepts become '-'.
QString suggested_file_name(const session::RunRecord& record) {
    QString name = text_of(record.receipt.project_name);
    if (!name.isEmpty()) name += QLatin1Char('-');
    name += record.receipt.name.empty() ? QString::fromStdString(record.id()) : text_of(record.receipt.name);
    for (QChar& c : name)
        if (QStringLiteral("/\\:*?\"<>|").contains(c)) c = QLatin1Char('-');
    return name + QStringLiteral(".h5");
}

QString script_suffix(RunList::ScriptKind kind) {
    switch (kind) {
        case RunList::ScriptKind::pytorch:
            return QStringLiteral("_pytorch.py");
        case RunList::ScriptKind::keras:
            return QStringLiteral("_keras.py");
        case RunList::ScriptKind::pytorch_training:
            return QStringLiteral("_pytorch_train.py");
        case RunList::ScriptKind::keras_training:
            return QStringLiteral("_keras_train.py");
    }
    return {};
}

std::string script_text(RunList::ScriptKind kind, const project::Project& project, const session::ModelCard& card,
                        const std::string& weights) {
    switch (kind) {
        case RunList::ScriptKind::pytorch:
            return session::pytorch_script(project, card, weights);
        case RunList::ScriptKind::keras:
            return session::keras_script(project, card, weights);
        case RunList::ScriptKind::pytorch_training:
            return session::pytorch_training_script(project, card, weights);
        case RunList::ScriptKind::keras_training:
            return session::keras_training_script(project, card, weights);
    }
    return {};
}

}  // namespace

// Beside the project, or in Documents for one never saved (not its runs' hidden folder).
QString RunList::suggested_export(const session::RunRecord& record, const QString& suffix) const {
    const QString name = in_dialog_folder(this, suggested_file_name(record));
    return name.left(name.lastIndexOf(QLatin1Char('.'))) + suffix;
}

bool RunList::export_weights(const QString& id, const QString& destination, QString* error) {
    if (error) error->clear();
    const session::RunRecord* record = run(id);
    if (!record) return fail(error, tr("There is no run %1 to export.").arg(id));
    const QString name = text_of(record->receipt.name);
    if (!has_weights(*record)) return fail(error, tr("“%1” kept no weights to export.").arg(name));
    const QString source = path_text(record->weights());
    if (!refuse_kept_file(destination, error)) return false;
    if (QFileInfo::exists(destination) &&
        !confirm(tr("%1 exists. Replace it with the weights of “%2”?").arg(destination, name)))
        return false;
    QFile file(source);
    if (!file.open(QIODevice::ReadOnly))
        return fail(error, tr("Could not read the weights of “%1”: %2").arg(name, file.errorString()));
    return write_whole(destination, file.readAll(), error);
}

// QSaveFile writes beside the destination and renames over it: a failure leaves the old file.
bool RunList::write_whole(const QString& destination, const QByteArray& bytes, QString* error) {
    QSaveFile out(destination);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return fail(error, tr("Could not write %1: %2. Nothing was replaced.").arg(destination, out.errorString()));
    return true;
}

bool RunList::export_script(const QString& id, ScriptKind kind, const QString& script, QString* error) {
    if (error) error->clear();
    const session::RunRecord* record = run(id);
    if (!record) return fail(error, tr("There is no run %1 to export.").arg(id));
    const QString name = text_of(record->receipt.name);
    if (!has_weights(*record)) return fail(error, tr("“%1” kept no weights to export.").arg(name));
    const QFileInfo script_file(script);
    // A training script saves "<script name>.h5" by default, so the weights it starts from go
    // beside it under another name.
    const bool training = kind == ScriptKind::pytorch_training || kind == ScriptKind::keras_training;
    const QString weights_name = script_file.completeBaseName() + (training ? "_start.h5" : ".h5");
    const QString weights = script_file.dir().filePath(weights_name);
    // The script may sit beside the run's own weights (then they are not copied); nothing kept is replaced.
    if (!refuse_kept_file(script, error) || !refuse_kept_file(weights, error, record->weights())) return false;
    QStringList existing;
    for (const QString& file : {script, weights})
        if (QFileInfo::exists(file)) existing << file;
    if (!existing.isEmpty() &&
        !confirm(tr("%1 already exist. Replace them with the network of “%2”?").arg(existing.join(tr(" and ")), name)))
        return false;
    std::string text;
    try {
        const session::SavedWeights saved = session::read_saved_weights(record->weights());
        const project::Project project = session::project_of(saved);
        text = script_text(kind, project, session::card_of(saved), weights_name.toStdString());
    } catch (const std::exception& failure) {
        return fail(error, tr("Could not export “%1”: %2").arg(name, text_of(failure.what())));
    }
    if (!io::same_file(weights.toStdWString(), record->weights())) {
        QFile source(path_text(record->weights()));
        if (!source.open(QIODevice::ReadOnly))
            return fail(error, tr("Could not read the weights of “%1”: %2").arg(name, source.errorString()));
        if (!write_whole(weights, source.readAll(), error)) return false;
    }
    return write_whole(script, QByteArray::fromStdString(text), error);
}

bool RunList::export_onnx(const QString& id, const QString& destination, QString* error) {
    if (error) error->clear();
    const session::RunRecord* record = run(id);
    if (!record) return fail(error, tr("There is no run %1 to export.").arg(id));
    const QString name = text_of(record->receipt.name);
    if (!has_weights(*record)) return fail(error, tr("“%1” kept no weights to export.").arg(name));
    if (!refuse_kept_file(destination, error)) return false;
    if (QFileInfo::exists(destination) &&
        !confirm(tr("%1 exists. Replace it with the network of “%2”?").arg(destination, name)))
        return false;
    std::string model;
    try {
        model = session::onnx_model(session::read_saved_weights(record->weights()));
    } catch (const std::exception& failure) {
        return fail(error, tr("Could not export “%1”: %2").arg(name, text_of(failure.what())));
    }
    return write_whole(destination, QByteArray::fromStdString(model), error);
}

QString RunList::run_to_export() const {
    const QString selected = selected_run();
    if (const session::RunRecord* record = run(selected); record && has_weights(*record)) return selected;
    for (auto it = runs_.rbegin(); it != runs_.rend(); ++it)
        if (has_weights(*it)) return QString::fromStdString(it->id());
    return {};
}

void RunList::export_weights_asking(const QString& id) {
    const session::RunRecord* record = run(id);
    if (!record) return;
    const QString destination = ask_export_path(suggested_export(*record, QStringLiteral(".h5")));
    if (destination.isEmpty()) return;
    QString error;
    export_weights(id, destination, &error);
}

void RunList::export_script_asking(const QString& id, ScriptKind kind) {
    const session::RunRecord* record = run(id);
    if (!record) return;
    const QString script = ask_script_path(suggested_export(*record, script_suffix(kind)));
    if (script.isEmpty()) return;
    QString error;
    export_script(id, kind, script, &error);
}

void RunList::export_onnx_asking(const QString& id) {
    const session::RunRecord* record = run(id);
    if (!record) return;
    const QString destination = ask_onnx_path(suggested_export(*record, QStringLiteral(".onnx")));
    if (destination.isEmpty()) return;
    QString error;
    export_onnx(id, destination, &error);
}

}  // namespace bps::ui
