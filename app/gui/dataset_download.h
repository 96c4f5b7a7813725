#pragma once
// Downloading a catalogue dataset from the window: the download runs on its own thread and
// reports back through queued signals, so the window stays responsive and Cancel works.
#include <QObject>
#include <QString>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "datasets/catalogue.h"

class QWidget;

namespace bps::app {

class DatasetDownload : public QObject {
    Q_OBJECT
public:
    DatasetDownload(datasets::CatalogueEntry entry, std::filesystem::path user_root, QObject* parent = nullptr);
    // Cancels a download still running and waits for its thread (the downloader checks the
    // flag every few milliseconds); the .part file stays for the next attempt.
    ~DatasetDownload() override;

    const datasets::CatalogueEntry& entry() const { return entry_; }
    bool running() const { return running_; }

    // Starts the download; ignored while one runs. Every start ends in exactly one finished().
    void start();
    // Asks the download to stop; finished(false, "...stopped...") follows.
    void cancel() { cancelled_ = true; }

    static constexpr std::chrono::milliseconds progress_interval{50};  // about 20 updates a second

signals:
    // Bytes of `file` on disk (resumed bytes included) and its full size.
    void progress(QString file, qint64 received, qint64 total);
    // message: where the dataset is on success, the error text, or that it stopped on cancel.
    void finished(bool ok, QString message);

private:
    void report_progress(const datasets::DownloadProgress& progress);
    void report_end(bool ok, const QString& message);

    datasets::CatalogueEntry entry_;
    std::filesystem::path user_root_;
    std::thread worker_;
    std::atomic<bool> cancelled_{false};
    bool running_ = false;
    // Worker thread only:
    std::chrono::steady_clock::time_point last_report_;
    std::string last_file_;
};

struct DownloadOutcome {
    bool ok = false;
    QString message;
};

// Shows a progress dialog ("Downloading Fashion-MNIST: train-images-idx3-ubyte.gz", per mille
// of the file, Cancel stops the download) until the download ends, and returns how it ended.
DownloadOutcome run_download_dialog(QWidget* parent, const datasets::CatalogueEntry& entry,
                                    const std::filesystem::path& user_root);

// The outcome as a message box (object name "downloadOutcome"): information on success,
// a warning with the full message otherwise. Modal; returns when the learner closes it.
void show_download_outcome(QWidget* parent, const datasets::CatalogueEntry& entry, const DownloadOutcome& outcome);

}  // namespace bps::app
