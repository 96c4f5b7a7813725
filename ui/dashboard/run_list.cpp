#include "ui/dashboard/run_list.h"

#include <QDesktopServices>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QShortcut>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/base/number_text.h"
#include "engine/base/same_file.h"
#include "ui/charts/run_palette.h"
#include "ui/dashboard/hideable_columns.h"
#include "ui/dashboard/run_receipt_text.h"
#include "ui/qt_text.h"
#include "ui/results/results_export.h"

namespace bps::ui {

namespace {

constexpr int id_role = Qt::UserRole;

// Only the name is edited in place; the other columns are the run's facts.
class ReadOnlyDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget*, const QStyleOptionViewItem&, const QModelIndex&) const override { return nullptr; }
};

QString percent(const std::optional<session::Evaluation>& evaluation) {
    if (!evaluation) return QStringLiteral("—");
    return QString::number(evaluation->accuracy * 100.0, 'f', 1) + QStringLiteral(" %");
}

QString outcome_text(const session::RunRecord& record, bool active) {
    if (!record.receipt.outcome.empty()) return text_of(record.receipt.outcome);
    return active ? QStringLiteral("training") : QStringLiteral("unfinished");
}

QIcon swatch(const QColor& colour) {
    QPixmap pixmap(12, 12);
    pixmap.fill(colour);
    return QIcon(pixmap);
}

}  // namespace

RunList::RunList(QWidget* parent) : QWidget(parent) {
    confirm = [this](const QString& question) {
        return QMessageBox::question(this, tr("Runs"), question, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
               QMessageBox::Yes;
    };
    // The list asks about replacing a file itself (through `confirm`), so the dialog does not.
    ask_export_path = [this](const QString& suggested) {
        return QFileDialog::getSaveFileName(this, tr("Export weights"), suggested, tr("Weights (*.h5)"), nullptr,
                                            QFileDialog::DontConfirmOverwrite);
    };
    ask_script_path = [this](const QString& suggested) {
        return QFileDialog::getSaveFileName(this, tr("Export the network as a Python script"), suggested,
                                            tr("Python scripts (*.py)"), nullptr, QFileDialog::DontConfirmOverwrite);
    };
    ask_onnx_path = [this](const QString& suggested) {
        return QFileDialog::getSaveFileName(this, tr("Export the network as an ONNX model"), suggested,
                                            tr("ONNX models (*.onnx)"), nullptr, QFileDialog::DontConfirmOverwrite);
    };

    tree_ = new QTreeWidget(this);
    tree_->setColumnCount(column_count);
    tree_->setObjectName(QStringLiteral("runList"));
    tree_->setHeaderLabels({tr("Run"), tr("Started"), tr("Outcome"), tr("Epochs done"), tr("Validation accuracy"),
                            tr("Test accuracy"), tr("Device"), tr("Duration"), tr("Learning rate"), tr("Batch"),
                            tr("Optimiser"), tr("Epochs set")});
    tree_->setRootIsDecorated(false);
    tree_->setUniformRowHeights(true);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    auto* read_only = new ReadOnlyDelegate(tree_);
    for (int column = started_column; column < column_count; ++column)
        tree_->setItemDelegateForColumn(column, read_only);
    tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Two runs are told apart by their settings: those columns come right after the name.
    for (int column = learning_rate_column; column <= planned_epochs_column; ++column)
        tree_->header()->moveSection(tree_->header()->visualIndex(column), 1 + column - learning_rate_column);
    columns_ = new HideableColumns(tree_, QString::fromLatin1(columns_key),
                                   {QString(), "started", "outcome", "epochsDone", "validationAccuracy", "testAccuracy",
                                    "device", "duration", "learningRate", "batch", "optimiser", "epochsSet"});

    problems_ = new QLabel(this);
    problems_->setWordWrap(true);
    problems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problems_->setStyleSheet(QStringLiteral("color: #a33; font-size: small;"));
    problems_->hide();

    export_ = new QPushButton(tr("Export weights…"), this);
    delete_ = new QPushButton(tr("Delete…"), this);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(export_);
    buttons->addWidget(delete_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tree_, 1);
    layout->addWidget(problems_);
    layout->addLayout(buttons);

    connect(tree_, &QTreeWidget::itemChanged, this, &RunList::item_changed);
    connect(tree_, &QTreeWidget::itemSelectionChanged, this, &RunList::update_buttons);
    connect(tree_, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
        QTreeWidgetItem* item = tree_->itemAt(position);
        if (!item) return;
        tree_->setCurrentItem(item);
        QMenu* menu = context_menu(item->data(run_column, id_role).toString());
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(tree_->viewport()->mapToGlobal(position));
    });
    connect(export_, &QPushButton::clicked, this, [this] { export_weights_asking(selected_run()); });
    connect(delete_, &QPushButton::clicked, this, &RunList::delete_selected);
    // Only while the list itself has the focus: Delete in the name editor edits the name.
    auto* delete_key = new QShortcut(QKeySequence(QKeySequence::Delete), tree_);
    delete_key->setContext(Qt::WidgetShortcut);
    connect(delete_key, &QShortcut::activated, this, &RunList::delete_selected);
    update_buttons();
}

void RunList::show_folder(const std::filesystem::path& runs_folder) {
    const bool same_project = runs_folder == folder_;
    QStringList kept_ticks;
    if (same_project) {
        kept_ticks = ticked_runs();
    } else {
        colour_index_.clear();
        active_.clear();
    }
    folder_ = runs_folder;
    std::vector<std::string> problems;
    std::vector<session::RunRecord> runs = session::list_runs(runs_folder, &problems);

    filling_ = true;
    tree_->clear();
    runs_.clear();
    filling_ = false;
    // A freshly opened project shows its latest run, the one a learner most likely wants to see.
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const QString id = QString::fromStdString(runs[i].id());
        const bool ticked = same_project ? kept_ticks.contains(id) : i + 1 == runs.size();
        append_row(runs[i], ticked);
    }

    QStringList lines;
    for (const std::string& problem : problems) lines << text_of(problem);
    problems_->setText(lines.isEmpty() ? QString() : tr("Runs that could not be read:\n") + lines.join('\n'));
    problems_->setVisible(!lines.isEmpty());
    update_buttons();
    emit tickedRunsChanged(ticked_runs());
}

void RunList::add_run(const session::RunRecord& record) {
    if (index_of(QString::fromStdString(record.id())) >= 0) {
        update_run(record);
        return;
    }
    append_row(record, true);
    update_buttons();
    emit tickedRunsChanged(ticked_runs());
}

void RunList::update_run(const session::RunRecord& record) {
    const QString id = QString::fromStdString(record.id());
    const int index = index_of(id);
    if (index < 0) {
        add_run(record);
        return;
    }
    runs_[static_cast<std::size_t>(index)] = record;
    fill_row(tree_->topLevelItem(index), record);
    update_buttons();
}

QStringList RunList::run_ids() const {
    QStringList ids;
    for (const session::RunRecord& record : runs_) ids << QString::fromStdString(record.id());
    return ids;
}

QStringList RunList::ticked_runs() const {
    QStringList ids;
    for (int row = 0; row < tree_->topLevelItemCount(); ++row) {
        const QTreeWidgetItem* item = tree_->topLevelItem(row);
        if (item->checkState(run_column) == Qt::Checked) ids << item->data(run_column, id_role).toString();
    }
    return ids;
}

void RunList::set_ticked(const QString& id, bool ticked) {
    QTreeWidgetItem* item = item_of(id);
    if (!item) return;
    // itemChanged announces the change.
    item->setCheckState(run_column, ticked ? Qt::Checked : Qt::Unchecked);
}

const session::RunRecord* RunList::run(const QString& id) const {
    const int index = index_of(id);
    return index < 0 ? nullptr : &runs_[static_cast<std::size_t>(index)];
}

QColor RunList::colour_of(const QString& id) const {
    if (index_of(id) < 0) return {};
    return palette_colour(colour_index_.value(id));
}

void RunList::set_active_run(const QString& id) {
    active_ = id;
    for (std::size_t i = 0; i < runs_.size(); ++i) fill_row(tree_->topLevelItem(static_cast<int>(i)), runs_[i]);
    update_buttons();
}

bool RunList::rename(const QString& id, const QString& name, QString* error) {
    const int index = index_of(id);
    if (index < 0) return fail(error, tr("There is no run %1 to rename.").arg(id));
    const QString trimmed = name.trimmed();
    session::RunRecord& record = runs_[static_cast<std::size_t>(index)];
    if (trimmed.isEmpty()) {
        fill_row(tree_->topLevelItem(index), record);  // back to the old name
        return fail(error, tr("A run needs a name; “%1” keeps its name.").arg(text_of(record.receipt.name)));
    }
    try {
        session::rename_run(record.folder, trimmed.toStdString());
    } catch (const session::RunRecordError& failure) {
        fill_row(tree_->topLevelItem(index), record);
        return fail(error, tr("Could not rename the run: %1").arg(text_of(failure.what())));
    }
    record.receipt.name = trimmed.toStdString();
    fill_row(tree_->topLevelItem(index), record);
    emit runRenamed(id, trimmed);
    return true;
}

bool RunList::remove(const QString& id, QString* error) {
    if (error) error->clear();
    const int index = index_of(id);
    if (index < 0) return fail(error, tr("There is no run %1 to delete.").arg(id));
    const session::RunRecord& record = runs_[static_cast<std::size_t>(index)];
    const QString name = text_of(record.receipt.name);
    if (id == active_) return fail(error, tr("“%1” is training; stop it before deleting it.").arg(name));
    if (!confirm(tr("Delete the run “%1” with its curves and weights? This cannot be undone.").arg(name))) return false;
    try {
        session::delete_run(record.folder);
    } catch (const session::RunRecordError& failure) {
        return fail(error, tr("Could not delete the run: %1").arg(text_of(failure.what())));
    }
    const bool was_ticked = tree_->topLevelItem(index)->checkState(run_column) == Qt::Checked;
    filling_ = true;
    delete tree_->takeTopLevelItem(index);
    filling_ = false;
    runs_.erase(runs_.begin() + index);
    update_buttons();
    emit runRemoved(id);
    if (was_ticked) emit tickedRunsChanged(ticked_runs());
    return true;
}

bool RunList::can_continue(const QString& id) const {
    const session::RunRecord* record = run(id);
    std::error_code ignored;
    return record && id != active_ && std::filesystem::exists(record->folder / "checkpoint.h5", ignored);
}

QString RunList::selected_run() const {
    const QList<QTreeWidgetItem*> items = tree_->selectedItems();
    return items.isEmpty() ? QString() : items.front()->data(run_column, id_role).toString();
}

void RunList::select_run(const QString& id) {
    QTreeWidgetItem* item = item_of(id);
    if (item)
        tree_->setCurrentItem(item);
    else
        tree_->clearSelection();
}

QMenu* RunList::context_menu(const QString& id) {
    auto* menu = new QMenu(this);
    const session::RunRecord* record = run(id);
    if (!record) return menu;
    QAction* rename_action = menu->addAction(tr("Rename"));
    connect(rename_action, &QAction::triggered, this, [this, id] {
        if (QTreeWidgetItem* item = item_of(id)) tree_->editItem(item, run_column);
    });
    QAction* continue_action = menu->addAction(tr("Continue training"));
    continue_action->setObjectName("continueAction");
    continue_action->setEnabled(can_continue(id));
    connect(continue_action, &QAction::triggered, this, [this, id] { emit continueRequested(id); });
    menu->addSeparator();
    QAction* export_action = menu->addAction(tr("Export weights…"));
    export_action->setEnabled(has_weights(*record));
    connect(export_action, &QAction::triggered, this, [this, id] { export_weights_asking(id); });
    struct ScriptExport {
        ScriptKind kind;
        QString text;
        const char* name;
    };
    for (const ScriptExport& script :
         {ScriptExport{ScriptKind::pytorch, tr("Export for PyTorch…"), "exportPyTorchAction"},
          ScriptExport{ScriptKind::keras, tr("Export for Keras…"), "exportKerasAction"},
          ScriptExport{ScriptKind::pytorch_training, tr("Export for Training in PyTorch…"),
                       "exportPyTorchTrainingAction"},
          ScriptExport{ScriptKind::keras_training, tr("Export for Training in Keras…"), "exportKerasTrainingAction"}}) {
        QAction* script_action = menu->addAction(script.text);
        script_action->setObjectName(script.name);
        script_action->setEnabled(has_weights(*record));
        connect(script_action, &QAction::triggered, this,
                [this, id, kind = script.kind] { export_script_asking(id, kind); });
    }
    QAction* onnx_action = menu->addAction(tr("Export as ONNX…"));
    onnx_action->setObjectName("exportOnnxAction");
    onnx_action->setEnabled(has_weights(*record));
    connect(onnx_action, &QAction::triggered, this, [this, id] { export_onnx_asking(id); });
    QAction* show_action = menu->addAction(tr("Show in folder"));
    const QUrl url = QUrl::fromLocalFile(path_text(record->folder));
    connect(show_action, &QAction::triggered, this, [url] { QDesktopServices::openUrl(url); });
    menu->addSeparator();
    QAction* delete_action = menu->addAction(tr("Delete…"));
    delete_action->setEnabled(id != active_);
    connect(delete_action, &QAction::triggered, this, [this, id] {
        QString error;
        remove(id, &error);
    });
    return menu;
}

bool RunList::has_weights(const session::RunRecord& record) const {
    const std::filesystem::path weights = record.weights();
    std::error_code ignored;
    return !weights.empty() && std::filesystem::is_regular_file(weights, ignored);
}

int RunList::index_of(const QString& id) const {
    const std::string wanted = id.toStdString();
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].id() == wanted) return static_cast<int>(i);
    return -1;
}

QTreeWidgetItem* RunList::item_of(const QString& id) const {
    const int index = index_of(id);
    return index < 0 ? nullptr : tree_->topLevelItem(index);
}

// The lowest palette index no other listed run has; with more runs than colours, the least used.
int RunList::assign_colour(const QString& id) {
    if (const auto found = colour_index_.constFind(id); found != colour_index_.constEnd()) return *found;
    int uses[palette_size] = {};
    for (const session::RunRecord& record : runs_) {
        const QString other = QString::fromStdString(record.id());
        if (other != id && colour_index_.contains(other)) ++uses[colour_index_.value(other) % palette_size];
    }
    const int index = static_cast<int>(std::min_element(uses, uses + palette_size) - uses);
    colour_index_.insert(id, index);
    return index;
}

void RunList::append_row(const session::RunRecord& record, bool ticked) {
    const QString id = QString::fromStdString(record.id());
    assign_colour(id);
    runs_.push_back(record);
    filling_ = true;
    auto* item = new QTreeWidgetItem;
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemIsUserCheckable);
    item->setData(run_column, id_role, id);
    item->setCheckState(run_column, ticked ? Qt::Checked : Qt::Unchecked);
    tree_->addTopLevelItem(item);
    filling_ = false;
    fill_row(item, record);
}

void RunList::fill_row(QTreeWidgetItem* item, const session::RunRecord& record) {
    const session::RunReceipt& receipt = record.receipt;
    const QString id = QString::fromStdString(record.id());
    const bool active = id == active_;
    filling_ = true;
    item->setText(run_column, text_of(receipt.name));
    item->setIcon(run_column, swatch(palette_colour(colour_index_.value(id))));
    QString started = text_of(receipt.started_at);
    started.replace(QLatin1Char('T'), QLatin1Char(' '));
    item->setText(started_column, started);
    item->setText(outcome_column, outcome_text(record, active));
    item->setText(epochs_column, QString::number(receipt.epochs_completed));
    item->setText(validation_column, percent(receipt.validation));
    item->setText(test_column, percent(receipt.test));
    item->setText(device_column, text_of(receipt.device));
    item->setText(duration_column, text_of(session::format_duration(receipt.seconds)));
    item->setText(learning_rate_column, learning_rate_text(receipt.training));
    item->setText(batch_column, QString::number(receipt.training.batch_size));
    item->setText(optimiser_column, optimiser_name(receipt.training.optimizer));
    item->setText(planned_epochs_column, QString::number(receipt.training.epochs));
    for (int column : {epochs_column, validation_column, test_column, duration_column, learning_rate_column,
                       batch_column, planned_epochs_column})
        item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
    // The whole receipt (its folder and any problem included) over every cell of the row.
    const QString receipt_tip = receipt_text(record);
    for (int column = 0; column < column_count; ++column) item->setToolTip(column, receipt_tip);
    filling_ = false;
}

void RunList::item_changed(QTreeWidgetItem* item, int column) {
    if (filling_ || column != run_column) return;
    const QString id = item->data(run_column, id_role).toString();
    const session::RunRecord* record = run(id);
    if (!record) return;
    if (item->text(run_column) != text_of(record->receipt.name)) {
        QString error;
        rename(id, item->text(run_column), &error);
        return;
    }
    // Not the name: the tick.
    emit tickedRunsChanged(ticked_runs());
}

void RunList::delete_selected() {
    const QString id = selected_run();
    if (id.isEmpty()) return;
    QString error;
    remove(id, &error);
}

void RunList::update_buttons() {
    const session::RunRecord* record = run(selected_run());
    export_->setEnabled(record && has_weights(*record));
    delete_->setEnabled(record && selected_run() != active_);
}

bool RunList::refuse_kept_file(const QString& destination, QString* error, const std::filesystem::path& allowed) {
    std::vector<KeptFile> kept;
    if (!project_file_.empty()) kept.push_back({project_file_, tr("the project file")});
    for (const session::RunRecord& record : runs_)
        for (KeptFile& file : run_files(record))
            if (allowed.empty() || !io::same_file(file.file, allowed)) kept.push_back(std::move(file));
    QString message;
    return refuse_kept(destination, kept, &message) || fail(error, message);
}

bool RunList::fail(QString* error, const QString& message) {
    if (error) *error = message;
    emit problem(message);
    return false;
}

}  // namespace bps::ui
