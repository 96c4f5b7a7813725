#include "ui/main_window/unsaved_runs_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace bps::ui {

namespace {
enum Column { name_column, when_column, runs_column, folder_column, column_count };
}

UnsavedRunsDialog::UnsavedRunsDialog(std::vector<UnsavedProjectEntry> entries, QWidget* parent)
    : QDialog(parent), entries_(std::move(entries)) {
    setObjectName("unsavedRunsDialog");
    setWindowTitle(tr("Recover Unsaved Runs"));
    auto* layout = new QVBoxLayout(this);
    auto* explanation = new QLabel(
        entries_.empty()
            ? tr("No unsaved project has runs: every run belongs to a saved project.")
            : tr("These projects were trained but never saved. Their runs are kept in the studio's data folder. "
                 "Open one to see its runs again, then save it to keep them beside the project file."),
        this);
    explanation->setObjectName("unsavedRunsExplanation");
    explanation->setWordWrap(true);
    layout->addWidget(explanation);

    list_ = new QTreeWidget(this);
    list_->setObjectName(list_name);
    list_->setColumnCount(column_count);
    list_->setHeaderLabels({tr("Project"), tr("Last run"), tr("Runs"), tr("Folder")});
    list_->setRootIsDecorated(false);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    for (const UnsavedProjectEntry& entry : entries_) {
        const QString folder = QDir::toNativeSeparators(QString::fromStdString(entry.folder.string()));
        auto* item = new QTreeWidgetItem(list_, {entry.name, entry.last_run, QString::number(entry.runs), folder});
        item->setTextAlignment(runs_column, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(folder_column, folder);
    }
    list_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    list_->header()->setStretchLastSection(true);
    list_->setVisible(!entries_.empty());
    layout->addWidget(list_, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    open_ = buttons->addButton(tr("Open with Its Runs"), QDialogButtonBox::AcceptRole);
    open_->setObjectName(open_button_name);
    open_->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(list_, &QTreeWidget::itemSelectionChanged, this,
            [this] { open_->setEnabled(!list_->selectedItems().isEmpty()); });
    connect(list_, &QTreeWidget::itemDoubleClicked, this, &QDialog::accept);
    if (!entries_.empty()) list_->setCurrentItem(list_->topLevelItem(0));
    resize(720, 360);
}

std::filesystem::path UnsavedRunsDialog::chosen() const {
    const int row = list_->indexOfTopLevelItem(list_->currentItem());
    if (row < 0 || row >= static_cast<int>(entries_.size())) return {};
    return entries_[static_cast<std::size_t>(row)].folder;
}

std::filesystem::path UnsavedRunsDialog::choose(QWidget* parent, std::vector<UnsavedProjectEntry> entries) {
    UnsavedRunsDialog dialog(std::move(entries), parent);
    if (dialog.exec() != QDialog::Accepted) return {};
    return dialog.chosen();
}

}  // namespace bps::ui
