#pragma once
// Downloading a catalogue dataset from the window: the download is a WorkerBridge job, so the
// window stays responsive, progress arrives at most ~30 times a second and Cancel works.
#include <QObject>
#include <QString>
#include <filesystem>

#include "app/gui/worker_bridge.h"
#include "datasets/catalogue.h"

class QWidget;

namespace bps::app {

class DatasetDownload : public QObject {
    Q_OBJECT
public:
    DatasetDownload(datasets::CatalogueEntry entry, std::filesystem::path user_root, QObject* parent = nullptr);
    // Cancels a download still running without waiting for it: it stops within a few
    // milliseconds on its own thread, and the .part file stays for the next attempt.
    ~DatasetDownload() override = default;

    const datasets::CatalogueEntry& entry() const { return entry_; }
    bool running() const { return bridge_.running(); }

    // Starts the download; ignored while one runs. Every start ends in exactly one finished().
    void start();
    // Asks the download to stop; finished(false, "...stopped...") follows.
    void cancel() { bridge_.request_stop(); }

signals:
    // Bytes of `file` on disk (resumed bytes included) and its full size.
    void progress(QString file, qint64 received, qint64 total);
    // message: where the dataset is on success, the error text, or that it stopped on cancel.
    void finished(bool ok, QString message);

private:
    datasets::CatalogueEntry entry_;
    std::filesystem::path user_root_;
    WorkerBridge bridge_;
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
