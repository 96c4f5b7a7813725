#include "ui/course/exercise_dock.h"

#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QSplitter>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/qt_text.h"

namespace bps::ui {

namespace {

constexpr int point_role = Qt::UserRole;       // where a result or a hint points; may be empty
constexpr int status_role = Qt::UserRole + 1;  // a result's check_status_name

// A step's short Markdown as the plain words a tree item shows ("**flatten**" as "flatten").
QString plain_text_of(const std::string& markdown) {
    QTextDocument document;
    document.setMarkdown(text_of(markdown));
    return document.toPlainText();
}

QString hint_level_text(course::HintLevel level) {
    switch (level) {
        case course::HintLevel::nudge:
            return QObject::tr("a nudge");
        case course::HintLevel::pointer:
            return QObject::tr("where to look");
        case course::HintLevel::near_solution:
            return QObject::tr("nearly the answer");
    }
    return {};
}

// Rows as tall as their wrapped message at the tree's width: a check's message is a sentence or
// two, and an elided one hides what was expected and found.
class WrappingDelegate : public QStyledItemDelegate {
public:
    explicit WrappingDelegate(QTreeWidget* tree) : QStyledItemDelegate(tree), tree_(tree) {}
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QStyleOptionViewItem item = option;
        initStyleOption(&item, index);
        int depth = 0;
        for (QModelIndex parent = index.parent(); parent.isValid(); parent = parent.parent()) ++depth;
        const int icon = item.icon.isNull() ? 0 : item.decorationSize.width() + 6;
        const int width = std::max(80, tree_->viewport()->width() - tree_->indentation() * (depth + 1) - icon - 12);
        const QRect text = item.fontMetrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, item.text);
        const QSize base = QStyledItemDelegate::sizeHint(option, index);
        return {base.width(), std::max(base.height(), text.height() + 6)};
    }

private:
    QTreeWidget* tree_;
};

// Lays the rows out again when the dock's width changes, so their heights follow the wrapping.
class RelayoutOnResize : public QObject {
public:
    explicit RelayoutOnResize(QTreeWidget* tree) : QObject(tree), tree_(tree) {}
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Resize) tree_->doItemsLayout();
        return false;
    }

private:
    QTreeWidget* tree_;
};

// The instructions' own "# Title" line goes: the dock shows the title above them already, and a
// first-level heading takes a narrow dock's whole height.
QString without_leading_title(const QString& markdown) {
    QStringList lines = markdown.split('\n');
    while (!lines.isEmpty() && lines.front().trimmed().isEmpty()) lines.removeFirst();
    if (!lines.isEmpty() && lines.front().startsWith("# ")) lines.removeFirst();
    return lines.join('\n');
}

}  // namespace

QKeySequence ExerciseDock::check_key() {
    return QKeySequence(Qt::CTRL | Qt::Key_Return);
}

ExerciseDock::ExerciseDock(QWidget* parent)
    : QDockWidget(tr("Exercise"), parent),
      title_(new QLabel),
      goal_(new QLabel),
      instructions_(new QTextBrowser),
      results_(new QTreeWidget),
      hints_(new QListWidget),
      summary_(new QLabel),
      problem_(new QLabel),
      check_(new QPushButton(tr("Check"))),
      hint_(new QPushButton(tr("Hint"))),
      solution_(new QPushButton(tr("Solution…"))) {
    setObjectName(dock_name);
    title_->setObjectName("exerciseTitle");
    title_->setWordWrap(true);
    QFont heading = title_->font();
    heading.setBold(true);
    heading.setPointSizeF(heading.pointSizeF() * 1.2);
    title_->setFont(heading);
    goal_->setObjectName("exerciseGoal");
    goal_->setWordWrap(true);
    instructions_->setObjectName("exerciseInstructions");
    instructions_->setOpenExternalLinks(true);
    results_->setObjectName("exerciseResults");
    results_->setHeaderHidden(true);
    results_->setWordWrap(true);
    results_->setColumnCount(1);
    results_->setTextElideMode(Qt::ElideNone);
    results_->setItemDelegate(new WrappingDelegate(results_));
    results_->viewport()->installEventFilter(new RelayoutOnResize(results_));
    hints_->setObjectName("exerciseHints");
    hints_->setWordWrap(true);
    hints_->hide();
    summary_->setObjectName("exerciseSummary");
    summary_->setWordWrap(true);
    problem_->setObjectName("exerciseProblem");
    problem_->setWordWrap(true);
    problem_->setStyleSheet("color: #b00020;");
    problem_->hide();
    check_->setObjectName("checkExerciseButton");
    check_->setShortcut(check_key());
    check_->setToolTip(
        tr("Check the project and its newest run (%1)").arg(check_key().toString(QKeySequence::NativeText)));
    hint_->setObjectName("hintButton");
    solution_->setObjectName("showSolutionButton");
    solution_->setToolTip(tr("Opens the solution as a new project; your own stays as it is until you replace it"));

    // The instructions above, the steps and their results below: the learner drags the split.
    auto* lower = new QWidget;
    auto* lower_layout = new QVBoxLayout(lower);
    lower_layout->setContentsMargins(0, 0, 0, 0);
    lower_layout->addWidget(results_, 2);
    lower_layout->addWidget(hints_, 1);
    lower_layout->addWidget(summary_);
    lower_layout->addWidget(problem_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(check_);
    buttons->addWidget(hint_);
    buttons->addStretch(1);
    buttons->addWidget(solution_);
    lower_layout->addLayout(buttons);
    split_ = new QSplitter(Qt::Vertical);
    split_->addWidget(instructions_);
    split_->addWidget(lower);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 2);
    split_->setChildrenCollapsible(false);

    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(title_);
    layout->addWidget(goal_);
    layout->addWidget(split_, 1);
    setWidget(content);

    confirm = [this](const QString& question) {
        return QMessageBox::question(this, tr("Show the solution"), question) == QMessageBox::Yes;
    };
    connect(check_, &QPushButton::clicked, this, &ExerciseDock::checkRequested);
    connect(hint_, &QPushButton::clicked, this, &ExerciseDock::hintRequested);
    connect(solution_, &QPushButton::clicked, this, [this] {
        if (!exercise_) return;
        if (confirm && !confirm(tr("Show the solution of \"%1\"? It opens as a new project; trying a hint first "
                                   "teaches more.")
                                    .arg(text_of(exercise_->title))))
            return;
        emit solutionRequested();
    });
    const auto point = [this](const QVariant& where) {
        if (const QString place = where.toString(); !place.isEmpty()) emit pointRequested(place);
    };
    connect(results_, &QTreeWidget::itemClicked, this,
            [point](QTreeWidgetItem* item) { point(item->data(0, point_role)); });
    connect(hints_, &QListWidget::itemClicked, this, [point](QListWidgetItem* item) { point(item->data(point_role)); });

    for (QWidget* widget :
         {static_cast<QWidget*>(check_), static_cast<QWidget*>(hint_), static_cast<QWidget*>(solution_)})
        widget->setEnabled(false);
    title_->setText(tr("No exercise open"));
    goal_->setText(tr("Open one on the Course tab."));
}

void ExerciseDock::show_exercise(const course::Exercise& exercise, const course::ExerciseProgress& progress) {
    exercise_ = exercise;
    report_.reset();
    setWindowTitle(tr("Exercise"));  // short: it is a tab beside the Inspector's; the title is inside
    title_->setText(text_of(exercise.title));
    goal_->setText(tr("<b>Goal:</b> %1").arg(text_of(exercise.goal).toHtmlEscaped()));
    // Images in the Markdown are found beside it, in the exercise's folder.
    instructions_->setSearchPaths({path_text(exercise.folder), path_text(exercise.instructions.parent_path())});
    QFile file(path_text(exercise.instructions));
    const bool readable = file.open(QIODevice::ReadOnly | QIODevice::Text);
    if (readable)
        instructions_->setMarkdown(without_leading_title(QString::fromUtf8(file.readAll())));
    else
        instructions_->setPlainText(tr("The instructions could not be read: %1").arg(path_text(exercise.instructions)));
    // The instructions open with the goal in their own words: the line above would say it twice
    // and take the height a 720-pixel screen needs for them.
    goal_->setVisible(!readable);
    summary_->setText(tr("Change the starter, train it, then press Check."));
    show_problem({});
    fill_steps();
    const auto used = progress.hints_used.find(current_step());
    show_hints(used == progress.hints_used.end() ? 0 : used->second);
    check_->setEnabled(!checking_);
    solution_->setEnabled(true);
}

std::string ExerciseDock::current_step() const {
    if (!exercise_ || exercise_->steps.empty()) return {};
    if (report_) {
        const std::string step = report_->current_step();
        if (!step.empty()) return step;
        return exercise_->steps.back().id;  // all passed: the last step's hints stay at hand
    }
    return exercise_->steps.front().id;
}

void ExerciseDock::fill_steps() {
    results_->clear();
    if (!exercise_) return;
    const QStyle* look = style();
    for (const course::Step& step : exercise_->steps) {
        auto* step_item = new QTreeWidgetItem(results_, {text_of(step.title)});
        QFont bold = step_item->font(0);
        bold.setBold(true);
        step_item->setFont(0, bold);
        step_item->setToolTip(0, plain_text_of(step.text));
        bool any = false;
        if (report_)
            for (const course::CheckResult& result : report_->checks) {
                if (result.step != step.id) continue;
                any = true;
                auto* item = new QTreeWidgetItem(step_item, {text_of(result.message)});
                item->setData(0, status_role, QString(course::check_status_name(result.status)));
                item->setToolTip(0, text_of(result.message));
                switch (result.status) {
                    case course::CheckStatus::passed:
                        item->setIcon(0, look->standardIcon(QStyle::SP_DialogApplyButton));
                        break;
                    case course::CheckStatus::failed:
                        item->setIcon(0, look->standardIcon(QStyle::SP_MessageBoxCritical));
                        break;
                    case course::CheckStatus::not_attempted:
                    case course::CheckStatus::missing:
                        item->setIcon(0, look->standardIcon(QStyle::SP_MessageBoxInformation));
                        break;
                }
                // A result that names the node at fault takes the learner there; else where it says to look.
                const std::string where = !result.node.empty() ? "node:" + result.node : result.point_at;
                item->setData(0, point_role, text_of(where));
                if (!where.empty())
                    item->setToolTip(0, text_of(result.message) + "\n" + tr("Click to be shown where."));
            }
        if (!any && !step.text.empty()) {
            auto* item = new QTreeWidgetItem(step_item, {plain_text_of(step.text)});
            item->setForeground(0, palette().color(QPalette::PlaceholderText));
        }
    }
    results_->expandAll();
}

void ExerciseDock::show_report(const course::CheckReport& report) {
    const bool first_report = !report_;
    report_ = report;
    show_problem({});
    fill_steps();
    if (first_report) {
        // The instructions have been read by now: the results take the larger share of the split,
        // so that on a 720-pixel screen more than one message is in view.
        const QList<int> sizes = split_->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        if (total > 0) split_->setSizes({total / 3, total - total / 3});
    }
    // The first check that did not pass is what the learner works on next.
    for (QTreeWidgetItemIterator it(results_); *it; ++it)
        if ((*it)->data(0, status_role).toString() == course::check_status_name(course::CheckStatus::failed) ||
            (*it)->data(0, status_role).toString() == course::check_status_name(course::CheckStatus::not_attempted)) {
            results_->scrollToItem(*it, QAbstractItemView::PositionAtTop);
            break;
        }
    const int total = static_cast<int>(report.checks.size());
    QString summary = report.passed() ? tr("Passed: every check of this exercise passed.")
                                      : tr("%1 of %2 checks passed.").arg(report.passed_count()).arg(total);
    if (report.test_accuracy)
        summary += " " + tr("Test accuracy of the run: %1%.").arg(*report.test_accuracy * 100, 0, 'f', 1);
    summary_->setText(summary);
    summary_->setStyleSheet(report.passed() ? "color: #2e7d32; font-weight: bold;" : QString());
}

void ExerciseDock::set_checking(bool checking) {
    checking_ = checking;
    check_->setEnabled(!checking && exercise_);
    check_->setText(checking ? tr("Checking…") : tr("Check"));
    if (checking) {
        summary_before_check_ = summary_->text();
        summary_->setText(tr("Checking the project and its newest run…"));
    } else {
        summary_->setText(summary_before_check_);  // a report that follows replaces it
    }
}

void ExerciseDock::show_problem(const QString& text) {
    problem_->setText(text);
    problem_->setVisible(!text.isEmpty());
}

void ExerciseDock::show_hints(int revealed) {
    hints_->clear();
    hints_shown_ = 0;
    if (exercise_) {
        const std::string id = current_step();
        const auto step = std::find_if(exercise_->steps.begin(), exercise_->steps.end(),
                                       [&](const course::Step& s) { return s.id == id; });
        if (step != exercise_->steps.end()) {
            hints_shown_ = std::clamp(revealed, 0, static_cast<int>(step->hints.size()));
            for (int i = 0; i < hints_shown_; ++i) {
                const course::Hint& hint = step->hints[static_cast<std::size_t>(i)];
                auto* item = new QListWidgetItem(
                    tr("Hint %1 (%2): %3").arg(i + 1).arg(hint_level_text(hint.level), text_of(hint.text)), hints_);
                item->setData(point_role, text_of(hint.point_at));
                if (!hint.point_at.empty()) item->setToolTip(tr("Click to be shown where"));
            }
        }
    }
    hints_->setVisible(hints_shown_ > 0);
    update_hint_button();
}

void ExerciseDock::update_hint_button() {
    if (!exercise_) {
        hint_->setEnabled(false);
        return;
    }
    const std::string id = current_step();
    const auto step = std::find_if(exercise_->steps.begin(), exercise_->steps.end(),
                                   [&](const course::Step& s) { return s.id == id; });
    const int total = step == exercise_->steps.end() ? 0 : static_cast<int>(step->hints.size());
    hint_->setEnabled(hints_shown_ < total);
    hint_->setText(total == 0 ? tr("Hint") : tr("Hint %1/%2").arg(std::min(hints_shown_ + 1, total)).arg(total));
    hint_->setToolTip(hints_shown_ < total ? tr("Reveals the next hint for \"%1\"").arg(text_of(step->title))
                                           : tr("Every hint of this step is shown"));
}

}  // namespace bps::ui
