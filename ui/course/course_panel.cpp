#include "ui/course/course_panel.h"

#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/qt_text.h"

namespace bps::ui {

namespace {

constexpr int id_role = Qt::UserRole;  // an exercise row's id; empty on a track row

}  // namespace

CoursePanel::CoursePanel(QWidget* parent)
    : QWidget(parent),
      tree_(new QTreeWidget(this)),
      problem_(new QLabel(this)),
      details_(new QLabel(this)),
      open_(new QPushButton(tr("Open exercise"), this)),
      export_(new QPushButton(tr("Export progress…"), this)) {
    setObjectName("coursePanel");
    tree_->setObjectName("courseExercises");
    tree_->setColumnCount(column_count);
    tree_->setHeaderLabels({tr("Exercise"), tr("Status"), tr("Minutes")});
    tree_->setRootIsDecorated(false);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(exercise_column, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(status_column, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(minutes_column, QHeaderView::ResizeToContents);
    problem_->setObjectName("courseProblem");
    problem_->setWordWrap(true);
    problem_->setStyleSheet("color: #b00020;");
    problem_->hide();
    details_->setObjectName("exerciseDetails");
    details_->setWordWrap(true);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    details_->setTextFormat(Qt::RichText);
    details_->setMinimumWidth(260);
    open_->setObjectName("openExerciseButton");
    export_->setObjectName("exportProgressButton");
    export_->setToolTip(tr("A small JSON report of your progress, for a teacher"));

    auto* heading = new QLabel(tr("<h2>Course</h2><p>Exercises you do in the studio, checked as you go. "
                                  "Pick one and open it: its instructions show beside the canvas.</p>"),
                               this);
    heading->setWordWrap(true);
    auto* side = new QWidget(this);
    auto* side_layout = new QVBoxLayout(side);
    side_layout->addWidget(details_, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open_);
    buttons->addStretch(1);
    buttons->addWidget(export_);
    side_layout->addLayout(buttons);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(tree_);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(problem_);
    layout->addWidget(splitter, 1);

    connect(tree_, &QTreeWidget::currentItemChanged, this, [this] { show_details(); });
    connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        if (const QString id = item->data(exercise_column, id_role).toString(); !id.isEmpty()) emit openRequested(id);
    });
    connect(open_, &QPushButton::clicked, this, [this] {
        if (const QString id = selected_exercise(); !id.isEmpty()) emit openRequested(id);
    });
    connect(export_, &QPushButton::clicked, this, &CoursePanel::exportRequested);
    show_details();
}

QString CoursePanel::status_text(course::ExerciseStatus status) {
    switch (status) {
        case course::ExerciseStatus::not_started:
            return tr("Not started");
        case course::ExerciseStatus::in_progress:
            return tr("In progress");
        case course::ExerciseStatus::passed:
            return tr("Passed");
    }
    return {};
}

void CoursePanel::set_course(const std::vector<course::Exercise>& exercises, const course::CourseProgress& progress) {
    const QString selected = selected_exercise();
    exercises_ = exercises;
    tree_->clear();
    QTreeWidgetItem* track_item = nullptr;
    std::string track;
    QString first_open;
    for (const course::Exercise& exercise : exercises_) {
        if (!track_item || exercise.track != track) {
            track = exercise.track;
            track_item = new QTreeWidgetItem(tree_, {text_of(course::track_title(track))});
            QFont bold = track_item->font(exercise_column);
            bold.setBold(true);
            track_item->setFont(exercise_column, bold);
            track_item->setFlags(Qt::ItemIsEnabled);
            track_item->setExpanded(true);
        }
        const course::ExerciseStatus status = progress.status(exercise.id);
        auto* item = new QTreeWidgetItem(
            track_item, {text_of(exercise.title), status_text(status), QString::number(exercise.minutes)});
        item->setData(exercise_column, id_role, text_of(exercise.id));
        item->setToolTip(exercise_column, text_of(exercise.goal));
        item->setTextAlignment(minutes_column, Qt::AlignRight | Qt::AlignVCenter);
        if (status == course::ExerciseStatus::passed) item->setForeground(status_column, QColor(0x2e, 0x7d, 0x32));
        if (first_open.isEmpty() && status != course::ExerciseStatus::passed) first_open = text_of(exercise.id);
    }
    tree_->expandAll();
    if (!selected.isEmpty() && item_of(selected))
        select_exercise(selected);
    else if (!first_open.isEmpty())
        select_exercise(first_open);
    else if (!exercises_.empty())
        select_exercise(text_of(exercises_.front().id));
    show_details();
}

void CoursePanel::set_problem(const QString& text) {
    problem_->setText(text);
    problem_->setVisible(!text.isEmpty());
}

QString CoursePanel::selected_exercise() const {
    const QTreeWidgetItem* item = tree_->currentItem();
    return item ? item->data(exercise_column, id_role).toString() : QString();
}

void CoursePanel::select_exercise(const QString& id) {
    if (QTreeWidgetItem* item = item_of(id)) tree_->setCurrentItem(item);
}

QString CoursePanel::status_text(const QString& id) const {
    const QTreeWidgetItem* item = item_of(id);
    return item ? item->text(status_column) : QString();
}

QTreeWidgetItem* CoursePanel::item_of(const QString& id) const {
    for (int track = 0; track < tree_->topLevelItemCount(); ++track) {
        QTreeWidgetItem* track_item = tree_->topLevelItem(track);
        for (int row = 0; row < track_item->childCount(); ++row)
            if (track_item->child(row)->data(exercise_column, id_role).toString() == id) return track_item->child(row);
    }
    return nullptr;
}

void CoursePanel::show_details() {
    const QString id = selected_exercise();
    open_->setEnabled(!id.isEmpty());
    export_->setEnabled(!exercises_.empty());
    if (exercises_.empty()) {
        details_->setText(tr("No course was found: set BACKPROP_COURSE_DIR to a folder of exercises."));
        return;
    }
    const auto found = std::find_if(exercises_.begin(), exercises_.end(),
                                    [&](const course::Exercise& e) { return text_of(e.id) == id; });
    if (found == exercises_.end()) {
        details_->setText(tr("Select an exercise to see its goal."));
        return;
    }
    QStringList concepts;
    for (const std::string& concept_name : found->concepts) concepts << text_of(concept_name).toHtmlEscaped();
    details_->setText(QStringLiteral("<h3>%1</h3><p><b>%2</b> %3</p><p><b>%4</b> %5</p><p><b>%6</b> %7</p>")
                          .arg(text_of(found->title).toHtmlEscaped(), tr("Goal:"), text_of(found->goal).toHtmlEscaped(),
                               tr("Concepts:"), concepts.join(", "), tr("About:"),
                               tr("%1 minutes").arg(found->minutes)));
}

}  // namespace bps::ui
