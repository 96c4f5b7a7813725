#include "ui/results/class_figures_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/base/number_text.h"
#include "engine/session/results_tables.h"
#include "ui/results/class_figures_model.h"
#include "ui/results/results_export.h"

namespace bps::ui {

ClassFiguresTable::ClassFiguresTable(QWidget* parent) : QWidget(parent) {
    accuracy_ = new QLabel(this);
    accuracy_->setWordWrap(true);
    accuracy_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    model_ = new ClassFiguresModel(this);
    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(sort_role);
    view_ = new QTableView(this);
    view_->setModel(sorted_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(class_column, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    // Rows as tall as their text needs: ten classes fit without scrolling.
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setSectionResizeMode(class_column, QHeaderView::Stretch);
    view_->setCursor(Qt::PointingHandCursor);
    view_->setToolTip(tr("Click a class to show its images"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(accuracy_);
    layout->addWidget(view_, 1);

    connect(view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int true_class = class_at_row(index.row());
        if (true_class >= 0) emit classClicked(true_class);
    });
    set_matrix({}, {});
}

void ClassFiguresTable::set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names) {
    matrix_ = matrix;
    names_ = class_names_for(class_names, matrix.classes);
    std::vector<std::size_t> predicted;
    for (int c = 0; c < matrix.classes; ++c) predicted.push_back(matrix.predicted(c));
    model_->set_figures(session::class_figures(matrix), std::move(predicted), names_);
    accuracy_->setText(accuracy_text());
}

QString ClassFiguresTable::accuracy_text() const {
    if (matrix_.classes <= 0 || matrix_.total() == 0) return tr("No evaluation to show");
    const double accuracy = static_cast<double>(matrix_.correct()) / static_cast<double>(matrix_.total());
    return tr("Accuracy %1% on %2 images — chance with %3 classes: %4%")
        .arg(QString::number(100.0 * accuracy, 'f', 1),
             QString::fromStdString(session::format_thousands(matrix_.total())), QString::number(matrix_.classes),
             QString::number(100.0 / matrix_.classes, 'f', 1));
}

int ClassFiguresTable::class_at_row(int view_row) const {
    const QModelIndex source = sorted_->mapToSource(sorted_->index(view_row, class_column));
    return source.isValid() ? source.row() : -1;
}

QString ClassFiguresTable::csv() const {
    return QString::fromStdString(session::class_figures_csv(matrix_, to_std_names(names_)));
}

bool ClassFiguresTable::export_csv(const QString& path, QString* error) const {
    return save_text(session::class_figures_csv(matrix_, to_std_names(names_)), path, error);
}

bool ClassFiguresTable::export_png(const QString& path, QString* error) {
    return save_png(grab().toImage(), path, error);
}

}  // namespace bps::ui
