#include "ui/editor/problems_dock.h"

#include <QHeaderView>
#include <QStyle>
#include <QTreeWidget>

#include "ui/document/network_document.h"

namespace bps::ui {

namespace {

// The item's layer name; rows of the network, of the dataset and the placeholder have none.
constexpr int layer_role = Qt::UserRole;

}  // namespace

ProblemsDock::ProblemsDock(NetworkDocument* document, QWidget* parent)
    : QDockWidget(tr("Problems"), parent), document_(document), view_(new QTreeWidget(this)) {
    setObjectName("problemsDock");
    view_->setObjectName("problemsView");
    view_->setColumnCount(2);
    view_->setHeaderLabels({tr("Layer"), tr("Problem")});
    view_->setRootIsDecorated(false);
    view_->setUniformRowHeights(true);
    view_->setWordWrap(true);
    view_->header()->setStretchLastSection(true);
    view_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setWidget(view_);

    connect(view_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { activate(item); });
    connect(view_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
    connect(document_, &NetworkDocument::changed, this, &ProblemsDock::refresh);
    refresh();
}

void ProblemsDock::refresh() {
    view_->clear();
    const model::GraphReport& report = document_->report();
    const auto& layers = document_->network().layers;
    const QIcon error_icon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    QList<QTreeWidgetItem*> rows;
    for (const model::GraphProblem& problem : report.problems) {
        auto* row = new QTreeWidgetItem;
        QString where = tr("network");
        if (problem.node && *problem.node >= 0 && static_cast<std::size_t>(*problem.node) < layers.size()) {
            const std::string& name = layers[static_cast<std::size_t>(*problem.node)].name;
            // A layer without a name cannot be selected by it; say which one it is instead.
            where = name.empty() ? tr("layer %1").arg(*problem.node + 1) : QString::fromStdString(name);
            if (!name.empty()) row->setData(0, layer_role, QString::fromStdString(name));
        }
        const QString message = QString::fromStdString(problem.message);
        row->setText(0, where);
        row->setIcon(0, error_icon);
        row->setText(1, message);
        row->setToolTip(1, message);
        rows.append(row);
    }
    // The report knows no classes when the dataset could not be read; say why beside the rest.
    if (!document_->dataset_problem().empty()) {
        auto* row = new QTreeWidgetItem;
        const QString message = QString::fromStdString(document_->dataset_problem());
        row->setText(0, tr("dataset"));
        row->setIcon(0, error_icon);
        row->setText(1, message);
        row->setToolTip(1, message);
        rows.append(row);
    }
    problem_count_ = static_cast<int>(rows.size());
    QTreeWidgetItem* placeholder = nullptr;
    if (rows.isEmpty()) {
        placeholder = new QTreeWidgetItem;
        placeholder->setText(0, tr("No problems"));
        placeholder->setFlags(Qt::ItemIsEnabled);  // not selectable: it is no problem to go to
        placeholder->setForeground(0, palette().brush(QPalette::Disabled, QPalette::Text));
        rows.append(placeholder);
    }
    view_->addTopLevelItems(rows);
    if (placeholder) placeholder->setFirstColumnSpanned(true);  // only works once in the view
    setWindowTitle(problem_count_ > 0 ? tr("Problems (%1)").arg(problem_count_) : tr("Problems"));
}

void ProblemsDock::activate(QTreeWidgetItem* item) {
    if (!item) return;
    const QString name = item->data(0, layer_role).toString();
    if (!name.isEmpty()) emit layerActivated(name);
}

}  // namespace bps::ui
