#include "ui/devices/device_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/devices/device_list_model.h"

namespace bps::ui {

DevicePanel::DevicePanel(std::vector<device::DeviceDescription> devices, std::size_t default_index,
                         const std::string& problem, QWidget* parent)
    : QWidget(parent),
      table_(new QTableView(this)),
      summary_(new QLabel(this)),
      clear_cache_(new QPushButton(tr("Clear Kernel Cache"), this)),
      use_again_(new QPushButton(tr("Use Again"), this)),
      self_test_(new QPushButton(tr("Run Self-Test"), this)),
      cache_status_(new QLabel(this)) {
    setObjectName("devicePanel");
    table_->setObjectName("deviceTable");
    summary_->setObjectName("deviceSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    auto* title = new QLabel(tr("<b>OpenCL devices</b>"), this);
    layout->addWidget(title);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    // A damaged cache is cleared on its own when it kills a run; this is for the learner who
    // suspects one anyway, or wants the disk space back.
    clear_cache_->setObjectName("clearCacheButton");
    clear_cache_->setToolTip(
        tr("Removes the compiled kernels and the drivers' caches kept beside them; the next run builds them "
           "again, which takes a few seconds."));
    cache_status_->setObjectName("cacheStatus");
    cache_status_->setWordWrap(true);
    cache_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A device skipped because the program died twice while building for it: the learner who
    // updated its driver, or wants to try once more, takes it back here.
    use_again_->setObjectName("useAgainButton");
    use_again_->setToolTip(
        tr("Uses the selected skipped device again. If the program dies again while building kernels for it, it "
           "is skipped again."));
    use_again_->setEnabled(false);
    // The self-test runs by itself before a device's first training; this runs it on demand
    // (after a driver update, or to see the figures), as `backprop devices --check` does.
    self_test_->setObjectName("selfTestButton");
    self_test_->setToolTip(
        tr("Runs the selected device's self-test now: an SGEMM and one training step compared with the C++ "
           "references, and the time of a kernel launch."));
    self_test_->setEnabled(false);
    auto* cache_row = new QHBoxLayout;
    cache_row->addWidget(clear_cache_);
    cache_row->addWidget(use_again_);
    cache_row->addWidget(self_test_);
    cache_row->addWidget(cache_status_, 1);
    layout->addLayout(cache_row);
    connect(clear_cache_, &QPushButton::clicked, this, &DevicePanel::clearCacheRequested);
    connect(use_again_, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (model_ && !rows.isEmpty())
            emit enableDeviceRequested(static_cast<int>(model_->device_at(rows.front().row()).index));
    });

    connect(self_test_, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (model_ && !rows.isEmpty() && !self_testing_)
            emit selfTestRequested(static_cast<int>(model_->device_at(rows.front().row()).index));
    });

    if (!problem.empty() || devices.empty()) {
        summary_->setText(QString::fromStdString(problem));
        table_->hide();
        return;
    }
    default_index_ = default_index;
    model_ = new DeviceListModel(std::move(devices), default_index, this);
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeColumnsToContents();
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &DevicePanel::selection_changed);
    connect(model_, &QAbstractItemModel::dataChanged, this, &DevicePanel::selection_changed);
    table_->selectRow(static_cast<int>(default_index));
    show_summary();
}

void DevicePanel::show_summary() {
    const device::DeviceDescription& chosen = model_->device_at(static_cast<int>(default_index_));
    // Skipped devices come last in the choice of the default: this one is skipped only when all are.
    if (!chosen.skipped.empty()) {
        summary_->setText(
            tr("Every device is skipped: the program died while building kernels for it. Select one and press "
               "<b>Use Again</b> to train on it."));
        return;
    }
    // Devices with wrong results come after the others: this one is wrong only when all usable ones are.
    if (chosen.self_test == device::SelfTestState::wrong_results) {
        summary_->setText(tr("No device passed its self-test: <b>%1</b> computed wrong results (hover over its "
                             "self-test for the figures). Choose it on the Train panel to train on it anyway.")
                              .arg(QString::fromStdString(chosen.name).toHtmlEscaped()));
        return;
    }
    summary_->setText(
        tr("Training runs on <b>%1</b> (the default). Run <code>backprop devices</code> for every detail.")
            .arg(QString::fromStdString(chosen.name).toHtmlEscaped()));
}

void DevicePanel::show_cache_status(const QString& text) {
    cache_status_->setText(text);
}

void DevicePanel::mark_enabled(std::size_t device_index) {
    if (model_ && model_->mark_enabled(device_index)) show_summary();
}

std::optional<device::DeviceDescription> DevicePanel::device_with_index(std::size_t device_index) const {
    if (!model_) return std::nullopt;
    for (int row = 0; row < model_->rowCount(); ++row)
        if (model_->device_at(row).index == device_index) return model_->device_at(row);
    return std::nullopt;
}

void DevicePanel::selection_changed() {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    const bool skipped = model_ && !rows.isEmpty() && !model_->device_at(rows.front().row()).skipped.empty();
    use_again_->setEnabled(skipped);
    self_test_->setEnabled(model_ && !rows.isEmpty() && !skipped && !self_testing_);
}

void DevicePanel::set_self_testing(bool running) {
    self_testing_ = running;
    if (running) cache_status_->setText(tr("Running the self-test…"));
    selection_changed();
}

void DevicePanel::show_tuning(std::size_t device_index, const device::TuningRecord& record) {
    const std::optional<device::DeviceDescription> device = device_with_index(device_index);
    if (model_ && device) model_->set_tuning(device_index, record.chosen, record.summary(device->kind));
}

void DevicePanel::show_self_test(std::size_t device_index, const device::SelfTestResult& result) {
    const std::optional<device::DeviceDescription> device = device_with_index(device_index);
    const QString name = device ? QString::fromStdString(device->name) : tr("device %1").arg(device_index);
    if (!result.error.empty()) {
        // A test that could not finish says nothing about the results: the row keeps its state.
        cache_status_->setText(
            tr("The self-test of %1 could not finish: %2").arg(name, QString::fromStdString(result.error)));
        return;
    }
    if (model_ && model_->set_self_test(device_index, result.state(), result.summary())) show_summary();
    const QString summary = QString::fromStdString(result.summary());
    cache_status_->setText(result.correct() ? tr("%1: %2").arg(name, summary)
                                            : tr("%1 computed WRONG RESULTS: %2").arg(name, summary));
}

}  // namespace bps::ui
