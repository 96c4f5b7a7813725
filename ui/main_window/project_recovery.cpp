#include "ui/main_window/project_recovery.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <QUuid>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "ui/document/network_document.h"
#include "ui/main_window/project_file_io.h"

namespace bps::ui {

namespace {

const char* const recovery_format = "backprop-studio-recovery";

QString lock_path(const QString& recovery_file) {
    return recovery_file.chopped(static_cast<int>(QStringLiteral(".json").size())) + ".lock";
}

std::optional<ProjectRecovery::LeftBehind> read_recovery(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
    const QByteArray bytes = file.readAll();
    try {
        const nlohmann::json json = nlohmann::json::parse(bytes.begin(), bytes.end());
        if (json.value("format", std::string()) != recovery_format) return std::nullopt;
        ProjectRecovery::LeftBehind left;
        left.recovery_file = path;
        left.project = project::parse_project(json.at("project").dump(), path.toStdString());
        left.original_file = to_path(QString::fromStdString(json.value("original_file", std::string())));
        left.saved_at =
            QDateTime::fromString(QString::fromStdString(json.value("saved_at", std::string())), Qt::ISODateWithMs);
        if (!left.saved_at.isValid()) left.saved_at = QFileInfo(path).lastModified();
        return left;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

QString ProjectRecovery::default_folder() {
    // Beside the downloaded datasets (datasets/data_location.h): one folder of ours per user.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/backprop-studio/recovery";
}

ProjectRecovery::ProjectRecovery(NetworkDocument* document, QString folder, QObject* parent)
    : QObject(parent),
      document_(document),
      folder_(std::move(folder)),
      file_(QDir(folder_).filePath("autosave-" + QUuid::createUuid().toString(QUuid::WithoutBraces) + ".json")),
      timer_(new QTimer(this)) {
    timer_->setInterval(interval_ms);
    connect(timer_, &QTimer::timeout, this, [this] {
        if (const auto message = autosave()) emit autosaveFailed(*message);
    });
    // Back at the saved state (a save, or undo to it): nothing is left to recover.
    connect(document_, &NetworkDocument::fileStateChanged, this, [this] {
        if (!document_->is_modified()) discard();
    });
    timer_->start();
}

ProjectRecovery::~ProjectRecovery() = default;  // the lock goes, the file stays: not a clean close

std::optional<QString> ProjectRecovery::autosave() {
    if (!document_->is_modified()) return std::nullopt;
    if (!QDir().mkpath(folder_))
        return tr("Could not save the recovery copy: the folder %1 cannot be created")
            .arg(QDir::toNativeSeparators(folder_));
    if (!lock_) {
        auto lock = std::make_unique<QLockFile>(lock_path(file_));
        if (lock->tryLock(0)) lock_ = std::move(lock);
    }
    nlohmann::json json;
    json["format"] = recovery_format;
    json["version"] = 1;
    json["original_file"] = to_qstring(document_->file()).toStdString();
    json["saved_at"] = QDateTime::currentDateTime().toString(Qt::ISODateWithMs).toStdString();
    json["project"] = nlohmann::json::parse(project::project_to_json(document_->project()));
    return write_file_atomically(file_, QByteArray::fromStdString(json.dump(2)));
}

void ProjectRecovery::discard() {
    QFile::remove(file_);
}

std::vector<ProjectRecovery::LeftBehind> ProjectRecovery::left_behind() const {
    std::vector<LeftBehind> found;
    const QDir dir(folder_);
    for (const QString& name : dir.entryList({"autosave-*.json"}, QDir::Files)) {
        const QString path = dir.filePath(name);
        if (path == file_) continue;
        QLockFile owner(lock_path(path));
        owner.setStaleLockTime(0);        // locks are held for a window's life: only a dead owner's is stale
        if (!owner.tryLock(0)) continue;  // a running window's: it still has its project open
        if (auto left = read_recovery(path))
            found.push_back(std::move(*left));
        else
            QFile::remove(path);
    }
    std::sort(found.begin(), found.end(),
              [](const LeftBehind& a, const LeftBehind& b) { return a.saved_at > b.saved_at; });
    return found;
}

void ProjectRecovery::remove(const QString& recovery_file) {
    QFile::remove(recovery_file);
    QFile::remove(lock_path(recovery_file));
}

}  // namespace bps::ui
