#pragma once
// The Exercise dock, beside the canvas (tabified with the Inspector, so the window grows no
// wider): the open exercise's title, goal and instructions (Markdown, with the exercise folder as
// the search path so its images show), its steps with the last check's results (pass, fail, to do,
// each with its message), Check, Hint (the current step's next hint, one at a time) and Show
// solution (last, asked first).
//
// It paints and forwards: app/gui's CourseController runs the checks on a worker and records the
// hints; clicking a result that names a node or a place, or a pointer hint, asks the window to
// point there (pointRequested).
#include <QDockWidget>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "engine/course/checker.h"
#include "engine/course/exercise.h"
#include "engine/course/progress.h"

class QLabel;
class QListWidget;
class QPushButton;
class QSplitter;
class QTextBrowser;
class QTreeWidget;

namespace bps::ui {

class ExerciseDock : public QDockWidget {
    Q_OBJECT
public:
    static constexpr const char* dock_name = "exerciseDock";
    // Check's key, beside the button.
    static QKeySequence check_key();

    explicit ExerciseDock(QWidget* parent = nullptr);

    // The exercise opened, with the hints already revealed (from the progress); results are cleared.
    void show_exercise(const course::Exercise& exercise, const course::ExerciseProgress& progress);
    bool has_exercise() const { return exercise_.has_value(); }
    const course::Exercise* exercise() const { return exercise_ ? &*exercise_ : nullptr; }
    // The last check's results under their steps, and the summary line.
    void show_report(const course::CheckReport& report);
    const std::optional<course::CheckReport>& report() const { return report_; }
    // While a check runs, Check is disabled and says so.
    void set_checking(bool checking);
    // A check refused before it ran (a project for another dataset): in red under the buttons.
    void show_problem(const QString& text);
    // The step whose hints Hint reveals: the first with a check that did not pass in the last
    // report, else the first step.
    std::string current_step() const;
    // Shows `revealed` hints of the current step (Hint offers the next while there is one).
    void show_hints(int revealed);
    int hints_shown() const { return hints_shown_; }

    // Asked before the solution is shown; true goes on. Tests replace the message box.
    std::function<bool(const QString& question)> confirm;

    QLabel* title_label() const { return title_; }
    QLabel* goal_label() const { return goal_; }
    QTextBrowser* instructions() const { return instructions_; }
    QTreeWidget* results() const { return results_; }
    QListWidget* hints() const { return hints_; }
    QLabel* summary_label() const { return summary_; }
    QLabel* problem_label() const { return problem_; }
    QPushButton* check_button() const { return check_; }
    QPushButton* hint_button() const { return hint_; }
    QPushButton* solution_button() const { return solution_; }

signals:
    void checkRequested();
    void hintRequested();
    void solutionRequested();
    // "node:NAME", "dock:X", "tab:X", "control:X": where a result or a hint points.
    void pointRequested(const QString& where);

private:
    void fill_steps();
    void update_hint_button();

    std::optional<course::Exercise> exercise_;
    std::optional<course::CheckReport> report_;
    int hints_shown_ = 0;
    bool checking_ = false;
    QString summary_before_check_;
    QLabel* title_;
    QLabel* goal_;
    QTextBrowser* instructions_;
    QSplitter* split_ = nullptr;  // the instructions above, the steps and their results below
    QTreeWidget* results_;
    QListWidget* hints_;
    QLabel* summary_;
    QLabel* problem_;
    QPushButton* check_;
    QPushButton* hint_;
    QPushButton* solution_;
};

}  // namespace bps::ui
