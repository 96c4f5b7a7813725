#include "app/gui/dataset_download.h"

#include <QEventLoop>
#include <QMessageBox>
#include <QProgressDialog>
#include <stdexcept>

namespace bps::app {

namespace {

const char* const stopped_message = "stopped; downloading again resumes";

// Where a file stands, as the bridge carries it to the UI thread.
struct FileProgress {
    QString file;
    qint64 received = 0;
    qint64 total = 0;
};

}  // namespace

DatasetDownload::DatasetDownload(datasets::CatalogueEntry entry, std::filesystem::path user_root, QObject* parent)
    : QObject(parent), entry_(std::move(entry)), user_root_(std::move(user_root)) {
    connect(&bridge_, &WorkerBridge::progressed, this, [this](const QVariant& snapshot) {
        const auto at = snapshot.value<FileProgress>();
        emit progress(at.file, at.received, at.total);
    });
    connect(&bridge_, &WorkerBridge::finished, this,
            [this](const QVariant& where) { emit finished(true, where.toString()); });
    connect(&bridge_, &WorkerBridge::failed, this, [this](const QString& problem) { emit finished(false, problem); });
}

void DatasetDownload::start() {
    // The job holds copies: it may outlive this object, which never waits for it.
    bridge_.start([wanted = entry_, root = user_root_](JobChannel& channel) -> QVariant {
        try {
            datasets::download_dataset(wanted, root, [&channel](const datasets::DownloadProgress& at) {
                channel.report(QVariant::fromValue(FileProgress{
                    QString::fromStdString(at.file), static_cast<qint64>(at.received), static_cast<qint64>(at.total)}));
                return !channel.stop_requested();
            });
        } catch (const datasets::DownloadCancelled&) {
            throw std::runtime_error(stopped_message);
        }  // DownloadError, DatasetError, a full disk: their message reaches failed()
        // The last file's end is always reported, also when it was already complete on disk.
        if (!wanted.downloads.empty()) {
            const datasets::RemoteFile& last = wanted.downloads.back();
            channel.report(QVariant::fromValue(FileProgress{
                QString::fromStdString(last.name), static_cast<qint64>(last.size), static_cast<qint64>(last.size)}));
        }
        const QString where = QString::fromStdString(datasets::user_dataset_dir(wanted, root).string());
        return tr("%1 is downloaded to %2").arg(QString::fromStdString(wanted.title), where);
    });
}

DownloadOutcome run_download_dialog(QWidget* parent, const datasets::CatalogueEntry& entry,
                                    const std::filesystem::path& user_root) {
    const QString title = QString::fromStdString(entry.title);
    QProgressDialog dialog(QObject::tr("Downloading %1…").arg(title), QObject::tr("Cancel"), 0, 1000, parent);
    dialog.setObjectName("downloadProgress");
    dialog.setWindowTitle(QObject::tr("Download %1").arg(title));
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(0);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    dialog.setMinimumWidth(480);

    DatasetDownload download(entry, user_root);
    DownloadOutcome outcome;
    QEventLoop until_finished;
    QObject::connect(&download, &DatasetDownload::progress, &dialog,
                     [&dialog, title](const QString& file, qint64 received, qint64 total) {
                         dialog.setLabelText(QObject::tr("Downloading %1: %2").arg(title, file));
                         dialog.setValue(total > 0 ? static_cast<int>(received * 1000 / total) : 0);
                     });
    QObject::connect(&dialog, &QProgressDialog::canceled, &download, [&dialog, &download] {
        dialog.setLabelText(QObject::tr("Stopping…"));
        download.cancel();
    });
    QObject::connect(&download, &DatasetDownload::finished, &until_finished, [&](bool ok, const QString& message) {
        outcome = {ok, message};
        until_finished.quit();
    });
    dialog.show();
    download.start();
    until_finished.exec();
    dialog.hide();
    return outcome;
}

void show_download_outcome(QWidget* parent, const datasets::CatalogueEntry& entry, const DownloadOutcome& outcome) {
    const QString title = QString::fromStdString(entry.title);
    QMessageBox box(outcome.ok ? QMessageBox::Information : QMessageBox::Warning,
                    outcome.ok ? QObject::tr("%1 downloaded").arg(title) : QObject::tr("%1 not downloaded").arg(title),
                    outcome.ok ? outcome.message : QObject::tr("%1: %2").arg(title, outcome.message), QMessageBox::Ok,
                    parent);
    box.setObjectName("downloadOutcome");
    box.setTextInteractionFlags(Qt::TextSelectableByMouse);
    box.exec();
}

}  // namespace bps::app
