#include "ui/devices/device_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/devices/device_list_model.h"

namespace bps::ui {

DevicePanel::DevicePanel(std::vector<device::DeviceDescription> devices, std::size_t default_index,
                         const std::string& problem, QWidget* parent)
    : QWidget(parent), table_(new QTableView(this)), summary_(new QLabel(this)) {
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

}  // namespace bps::ui
