#include "app/gui/dataset_loading.h"

#include "app/gui/worker_bridge.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"

namespace bps::app {

DatasetLoading::DatasetLoading(QObject* parent) : QObject(parent) {}

bool DatasetLoading::running() const {
    return bridge_ && bridge_->running();
}

void DatasetLoading::load(int row, datasets::CatalogueEntry entry, std::filesystem::path user_root) {
    if (bridge_) {  // abandoned: asked to stop, never waited for, and its answer goes nowhere
        bridge_->disconnect(this);
        bridge_->request_stop();
        bridge_->deleteLater();
    }
    bridge_ = new WorkerBridge(this);
    connect(bridge_, &WorkerBridge::finished, this, [this, row](const QVariant& result) {
        emit loaded(row, result.value<std::shared_ptr<const datasets::Dataset>>());
    });
    connect(bridge_, &WorkerBridge::failed, this, [this, row](const QString& message) { emit failed(row, message); });
    bridge_->start([entry = std::move(entry), root = std::move(user_root)](JobChannel&) -> QVariant {
        // DatasetError, or memory running out: the bridge hands the message to failed().
        auto dataset = std::make_shared<const datasets::Dataset>(datasets::load_dataset(entry, root).train);
        return QVariant::fromValue(std::shared_ptr<const datasets::Dataset>(std::move(dataset)));
    });
}

DatasetLoading* connect_sample_loading(ui::DatasetPanel* panel) {
    auto* loading = new DatasetLoading(panel);
    QObject::connect(panel, &ui::DatasetPanel::samplesRequested, loading, [panel, loading](int row) {
        loading->load(row, panel->model()->entry(row), panel->model()->user_root());
    });
    QObject::connect(loading, &DatasetLoading::loaded, panel, &ui::DatasetPanel::show_loaded_samples);
    QObject::connect(loading, &DatasetLoading::failed, panel,
                     [panel](int, const QString& message) { panel->show_load_failed(message); });
    return loading;
}

}  // namespace bps::app
