#pragma once
// The course in the studio: reads the course (course::read_course at course_root, which honours
// BACKPROP_COURSE_DIR), keeps the learner's progress in a file of their own, and answers the
// Course tab and the Exercise dock. Opening an exercise loads its starter as a new unsaved project
// (the unsaved-changes question applies, as for File ▸ New). Check runs course::check_exercise, the
// one checker the command line's `backprop course check` uses too, on the JobQueue's worker: with
// the project, its newest run and that run's evaluation, all its runs, the answers picked in the
// views (the Results tab's chosen pair and class, the run list's selected run) and a
// DeviceSanityRunner on the project's device. The window never waits for it.
//
// The progress file: the constructor's argument, else $BACKPROP_COURSE_PROGRESS, else
// AppDataLocation/course-progress.json. A damaged one is shown as a problem on the Course tab and
// never overwritten: progress is kept in memory but saving is refused until the learner repairs
// or removes the file (chosen over moving it aside, so nothing is renamed behind their back).
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "engine/course/checker.h"
#include "engine/course/exercise.h"
#include "engine/course/progress.h"

Q_DECLARE_METATYPE(bps::course::CheckReport)

namespace bps::ui {
class MainWindow;
}

namespace bps::app {

class JobQueue;

class CourseController : public QObject {
    Q_OBJECT
public:
    // `course_folder` empty: course_root(program's folder). `progress_file` empty: see above.
    explicit CourseController(ui::MainWindow* window, std::filesystem::path course_folder = {},
                              std::filesystem::path progress_file = {}, QObject* parent = nullptr);
    ~CourseController() override;

    static std::filesystem::path default_progress_file();

    const std::vector<course::Exercise>& exercises() const { return exercises_; }
    const course::CourseProgress& progress() const { return progress_; }
    const std::filesystem::path& progress_file() const { return progress_file_; }
    // Why the progress cannot be saved (a damaged file), or why the last save failed; empty: fine.
    const QString& progress_problem() const { return progress_problem_; }
    // The exercise open in the dock, or null.
    const course::Exercise* current() const;

    // Loads the exercise's starter as a new project and shows the dock; false when the learner
    // kept the current project, or the starter could not be read (said in the dock and the panel).
    bool open_exercise(const QString& id);
    // Runs the checks on a worker; checked() or checkRefused() follows.
    void check();
    // Reveals the current step's next hint (and points where a pointer hint says).
    void reveal_hint();
    // Opens the solution as a new unsaved project (the dock asked first).
    void show_solution();
    // The teacher's report (course::progress_report) written atomically to `file`; refused for a
    // file the course reads (the progress file, an exercise's files, the open project).
    bool export_report(const std::filesystem::path& file, QString* error);

    JobQueue* queue() const { return queue_; }
    // Where Export progress… writes (default: a save dialog); empty: cancelled. Tests replace it.
    std::function<QString(const QString& suggested)> ask_export_path;

signals:
    void checked(const bps::course::CheckReport& report);
    void checkRefused(const QString& message);
    void progressChanged();

private:
    void show_course();
    void save();
    std::string now() const;

    ui::MainWindow* window_;
    JobQueue* queue_;
    std::filesystem::path course_folder_;
    std::vector<course::Exercise> exercises_;
    QStringList course_problems_;
    std::filesystem::path progress_file_;
    course::CourseProgress progress_;
    bool progress_damaged_ = false;
    QString progress_problem_;
    std::optional<std::size_t> current_;  // index into exercises_
};

}  // namespace bps::app
