#include "ui/devices/device_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
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
    auto* cache_row = new QHBoxLayout;
    cache_row->addWidget(clear_cache_);
    cache_row->addWidget(cache_status_, 1);
    layout->addLayout(cache_row);
    connect(clear_cache_, &QPushButton::clicked, this, &DevicePanel::clearCacheRequested);

    if (!problem.empty() || devices.empty()) {
        summary_->setText(QString::fromStdString(problem));
        table_->hide();
        return;
    }
    const QString default_name = QString::fromStdString(devices.at(default_index).name);
    table_->setModel(new DeviceListModel(std::move(devices), default_index, this));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeColumnsToContents();
    table_->selectRow(static_cast<int>(default_index));
    summary_->setText(
        tr("Training runs on <b>%1</b> (the default). Run <code>backprop devices</code> for every detail.")
            .arg(default_name.toHtmlEscaped()));
}

void DevicePanel::show_cache_status(const QString& text) {
    cache_status_->setText(text);
}

}  // namespace bps::ui
