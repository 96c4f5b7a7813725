#include "ui/dashboard/hideable_columns.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QTreeView>

namespace bps::ui {

HideableColumns::HideableColumns(QTreeView* view, QString settings_key, QStringList names)
    : QObject(view), view_(view), key_(std::move(settings_key)), names_(std::move(names)) {
    const QStringList hidden_names = QSettings().value(key_).toStringList();
    for (int column = 0; column < names_.size(); ++column)
        if (!names_[column].isEmpty()) view_->setColumnHidden(column, hidden_names.contains(names_[column]));
    QHeaderView* header = view_->header();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
        QMenu* shown = menu();
        shown->setAttribute(Qt::WA_DeleteOnClose);
        shown->popup(view_->header()->viewport()->mapToGlobal(position));
    });
}

void HideableColumns::set_hidden(int column, bool hide) {
    if (column < 0 || column >= names_.size() || names_[column].isEmpty()) return;
    view_->setColumnHidden(column, hide);
    save();
}

bool HideableColumns::hidden(int column) const {
    return view_->isColumnHidden(column);
}

QMenu* HideableColumns::menu() {
    auto* result = new QMenu(view_);
    result->setObjectName(QStringLiteral("columnsMenu"));
    const QAbstractItemModel* model = view_->model();
    for (int column = 0; column < names_.size(); ++column) {
        if (names_[column].isEmpty()) continue;
        QAction* action = result->addAction(model->headerData(column, Qt::Horizontal).toString());
        action->setObjectName(names_[column]);
        action->setCheckable(true);
        action->setChecked(!view_->isColumnHidden(column));
        connect(action, &QAction::toggled, this, [this, column](bool checked) { set_hidden(column, !checked); });
    }
    return result;
}

void HideableColumns::save() const {
    QStringList hidden_names;
    for (int column = 0; column < names_.size(); ++column)
        if (!names_[column].isEmpty() && view_->isColumnHidden(column)) hidden_names << names_[column];
    QSettings().setValue(key_, hidden_names);
}

}  // namespace bps::ui
