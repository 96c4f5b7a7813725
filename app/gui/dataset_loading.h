#pragma once
// Loading a dataset for the sample browser, off the UI thread through a WorkerBridge: the
// Datasets panel asks (samplesRequested) and is answered (show_loaded_samples or
// show_load_failed); it never owns a thread and never waits.
#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>

#include "datasets/catalogue.h"

namespace bps::ui {
class DatasetPanel;
}

namespace bps::app {

class WorkerBridge;

class DatasetLoading : public QObject {
    Q_OBJECT
public:
    explicit DatasetLoading(QObject* parent = nullptr);

    // Loads the entry's training set (unpacking a downloaded archive first). A load still
    // running is abandoned, never waited for: only the latest request is answered.
    void load(int row, datasets::CatalogueEntry entry, std::filesystem::path user_root);
    bool running() const;

signals:
    void loaded(int row, std::shared_ptr<const datasets::Dataset> dataset);
    void failed(int row, QString message);

private:
    WorkerBridge* bridge_ = nullptr;  // the latest request's
};

// Answers the panel's sample requests with a DatasetLoading owned by the panel. The studio's
// main() and the UI tests wire a panel the same way.
DatasetLoading* connect_sample_loading(ui::DatasetPanel* panel);

}  // namespace bps::app
