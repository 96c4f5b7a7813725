#pragma once
// The Course tab: the course's exercises grouped by track ("Fashion-MNIST", "MNIST", ...), each
// with its status (not started, in progress, passed) and estimated minutes; the selected one's goal
// and concepts; "Open exercise" (or a double-click) and "Export progress…". It paints and forwards:
// app/gui's CourseController reads the course and the progress and answers the requests.
#include <QString>
#include <QWidget>
#include <vector>

#include "engine/course/exercise.h"
#include "engine/course/progress.h"

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace bps::ui {

class CoursePanel : public QWidget {
    Q_OBJECT
public:
    enum Column { exercise_column, status_column, minutes_column, column_count };

    explicit CoursePanel(QWidget* parent = nullptr);

    // The exercises in the course's order with their status; the selection is kept, else the
    // first exercise not passed is selected (a first start offers the first exercise).
    void set_course(const std::vector<course::Exercise>& exercises, const course::CourseProgress& progress);
    // A line in red above the list (a damaged progress file, exercises that could not be read);
    // empty hides it.
    void set_problem(const QString& text);

    QString selected_exercise() const;  // its id; empty when a track or nothing is selected
    void select_exercise(const QString& id);
    // "Not started", "In progress" or "Passed", as the row shows it; empty for an unknown id.
    QString status_text(const QString& id) const;
    static QString status_text(course::ExerciseStatus status);

    QTreeWidget* tree() const { return tree_; }
    QPushButton* open_button() const { return open_; }
    QPushButton* export_button() const { return export_; }
    QLabel* problem_label() const { return problem_; }
    QLabel* details_label() const { return details_; }

signals:
    void openRequested(const QString& id);
    void exportRequested();

private:
    QTreeWidgetItem* item_of(const QString& id) const;
    void show_details();

    std::vector<course::Exercise> exercises_;
    QTreeWidget* tree_;
    QLabel* problem_;
    QLabel* details_;
    QPushButton* open_;
    QPushButton* export_;
};

}  // namespace bps::ui
