#include "app/gui/dataset_download.h"

#include <QEventLoop>
#include <QMessageBox>
#include <QProgressDialog>

namespace bps::app {

namespace {

const char* const stopped_message = "stopped; downloading again resumes";

}  // namespace

DatasetDownload::DatasetDownload(datasets::CatalogueEntry entry, std::filesystem::path user_root, QObject* parent)
    : QObject(parent), entry_(std::move(entry)), user_root_(std::move(user_root)) {}

DatasetDownload::~DatasetDownload() {
    cancel();
    // Joined before QObject's destructor drops the events the worker posted to this object.
    if (worker_.joinable()) worker_.join();
}

void DatasetDownload::start() {
    if (running_) return;
    if (worker_.joinable()) worker_.join();  // the previous run has already reported its end
    running_ = true;
    cancelled_ = false;
    last_file_.clear();
    last_report_ = {};
    worker_ = std::thread([this] {
        try {
            datasets::download_dataset(entry_, user_root_, [this](const datasets::DownloadProgress& progress) {
                report_progress(progress);
                return !cancelled_.load();
            });
        } catch (const datasets::DownloadCancelled&) {
            report_end(false, stopped_message);
            return;
        } catch (const std::exception& error) {  // DownloadError, DatasetError, a full disk
            report_end(false, QString::fromStdString(error.what()));
            return;
        }
        // The last file's end is always reported, also when it was already complete on disk.
        if (!entry_.downloads.empty()) {
            const datasets::RemoteFile& last = entry_.downloads.back();
            report_progress({last.name, last.size, last.size});
        }
        QString where = QString::fromStdString(datasets::user_dataset_dir(entry_, user_root_).string());
        report_end(true, tr("%1 is downloaded to %2").arg(QString::fromStdString(entry_.title), where));
    });
}

// Runs on the worker thread: the signal is emitted on this object's thread, through the queue.
void DatasetDownload::report_progress(const datasets::DownloadProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    const bool new_file = progress.file != last_file_;
    const bool file_done = progress.received == progress.total;
    if (!new_file && !file_done && now - last_report_ < progress_interval) return;
    last_file_ = progress.file;
    last_report_ = now;
    QMetaObject::invokeMethod(
        this,
        [this, file = QString::fromStdString(progress.file), received = static_cast<qint64>(progress.received),
         total = static_cast<qint64>(progress.total)] { emit this->progress(file, received, total); },
        Qt::QueuedConnection);
}

void DatasetDownload::report_end(bool ok, const QString& message) {
    QMetaObject::invokeMethod(
        this,
        [this, ok, message] {
            if (worker_.joinable()) worker_.join();  // it has nothing left to do but return
            running_ = false;
            emit finished(ok, message);
        },
        Qt::QueuedConnection);
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
