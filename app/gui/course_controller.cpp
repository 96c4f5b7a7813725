#include "app/gui/course_controller.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QMetaType>
#include <QSaveFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <algorithm>
#include <memory>

#include "app/gui/job_queue.h"
#include "engine/base/same_file.h"
#include "engine/course/sanity_runner.h"
#include "engine/project/project.h"
#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"
#include "ui/course/course_panel.h"
#include "ui/course/exercise_dock.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/qt_text.h"
#include "ui/results/results_panel.h"

namespace bps::app {

namespace {

using ui::text_of;

// What the worker answers a Check with.
struct CheckAnswer {
    std::shared_ptr<const course::CheckReport> report;
};

QString path_text(const std::filesystem::path& path) {
    return QDir::toNativeSeparators(QString::fromStdWString(path.wstring()));
}

std::filesystem::path to_path(const QString& text) {
    return std::filesystem::path(text.toStdWString());
}

}  // namespace

}  // namespace bps::app

Q_DECLARE_METATYPE(bps::app::CheckAnswer)

namespace bps::app {

std::filesystem::path CourseController::default_progress_file() {
    if (const QString file = qEnvironmentVariable("BACKPROP_COURSE_PROGRESS"); !file.isEmpty()) return to_path(file);
    return to_path(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/course-progress.json");
}

CourseController::CourseController(ui::MainWindow* window, std::filesystem::path course_folder,
                                   std::filesystem::path progress_file, QObject* parent)
    : QObject(parent),
      window_(window),
      queue_(new JobQueue(this)),
      course_folder_(course_folder.empty() ? course::course_root(to_path(QCoreApplication::applicationDirPath()))
                                           : std::move(course_folder)),
      progress_file_(progress_file.empty() ? default_progress_file() : std::move(progress_file)) {
    qRegisterMetaType<bps::course::CheckReport>();
    if (!course_folder_.empty()) {
        std::vector<std::string> problems;
        exercises_ = course::read_course(course_folder_, &problems);
        for (const std::string& problem : problems) course_problems_ << text_of(problem);
    }
    try {
        progress_ = course::read_progress(progress_file_);
    } catch (const std::exception& error) {
        // Kept as it is: the learner's record of past work is theirs to repair; nothing is saved over it.
        progress_damaged_ = true;
        progress_problem_ = tr("Your course progress could not be read, so it is not saved until the file is "
                               "repaired or removed: %1")
                                .arg(text_of(error.what()));
    }

    ui::CoursePanel* panel = window_->course_panel();
    ui::ExerciseDock* dock = window_->exercise_dock();
    connect(panel, &ui::CoursePanel::openRequested, this, &CourseController::open_exercise);
    connect(panel, &ui::CoursePanel::exportRequested, this, [this] {
        const QString suggested =
            QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)).filePath("course-report.json");
        const QString path = ask_export_path ? ask_export_path(suggested)
                                             : QFileDialog::getSaveFileName(window_, tr("Export progress"), suggested,
                                                                            tr("JSON files (*.json)"));
        if (path.isEmpty()) return;
        QString error;
        if (export_report(to_path(path), &error))
            window_->statusBar()->showMessage(tr("Progress exported to %1").arg(QDir::toNativeSeparators(path)), 8000);
        else
            window_->prompts().error(error);
    });
    connect(dock, &ui::ExerciseDock::checkRequested, this, &CourseController::check);
    connect(dock, &ui::ExerciseDock::hintRequested, this, &CourseController::reveal_hint);
    connect(dock, &ui::ExerciseDock::solutionRequested, this, &CourseController::show_solution);
    show_course();
}

CourseController::~CourseController() = default;  // a check still running ends on its own

const course::Exercise* CourseController::current() const {
    return current_ ? &exercises_[*current_] : nullptr;
}

std::string CourseController::now() const {
    return QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
}

void CourseController::show_course() {
    ui::CoursePanel* panel = window_->course_panel();
    panel->set_course(exercises_, progress_);
    QStringList problems;
    if (!progress_problem_.isEmpty()) problems << progress_problem_;
    if (course_folder_.empty())
        problems << tr("No course was found beside the studio; BACKPROP_COURSE_DIR can name its folder.");
    for (const QString& problem : course_problems_) problems << tr("An exercise was skipped: %1").arg(problem);
    panel->set_problem(problems.join('\n'));
}

void CourseController::save() {
    if (!progress_damaged_) {
        try {
            course::save_progress(progress_file_, progress_);
            progress_problem_.clear();
        } catch (const std::exception& error) {
            progress_problem_ = tr("Your course progress could not be saved: %1").arg(text_of(error.what()));
        }
    }
    show_course();
    emit progressChanged();
}

bool CourseController::open_exercise(const QString& id) {
    const auto found = std::find_if(exercises_.begin(), exercises_.end(),
                                    [&](const course::Exercise& exercise) { return text_of(exercise.id) == id; });
    if (found == exercises_.end()) return false;
    project::Project starter;
    try {
        starter = project::read_project(found->starter);
    } catch (const std::exception& error) {
        window_->prompts().error(tr("The exercise's starter could not be opened.\n\n%1").arg(text_of(error.what())));
        return false;
    }
    starter.name = found->title;
    if (!window_->new_project_from(std::move(starter), text_of(found->title))) return false;
    current_ = static_cast<std::size_t>(found - exercises_.begin());
    progress_.open(found->id, now());
    window_->exercise_dock()->show_exercise(*found, progress_.exercises[found->id]);
    window_->show_exercise_dock();
    save();
    return true;
}

void CourseController::check() {
    const course::Exercise* exercise = current();
    if (!exercise) return;
    ui::ExerciseDock* dock = window_->exercise_dock();
    ui::RunList* run_list = window_->dashboard()->run_list();

    course::CheckInput input;
    input.project = window_->document()->project();
    input.source =
        window_->document()->file().empty() ? exercise->title : window_->document()->file().filename().string();
    // The runs that have ended; the newest is checked (one still training has no result yet).
    for (const QString& id : run_list->run_ids())
        if (id != run_list->active_run())
            if (const session::RunRecord* run = run_list->run(id)) input.runs.push_back(*run);
    if (!input.runs.empty()) input.run = input.runs.back();
    // What the learner picked in the views answers the interpretation checks.
    for (const course::Step& step : exercise->steps)
        for (const course::Check& check : step.checks) {
            if (check.kind != course::CheckKind::interpretation) continue;
            QString answer;
            if (check.type == "most_confused_pair")
                answer = window_->results_panel()->chosen_pair();
            else if (check.type == "least_accurate_class")
                answer = window_->results_panel()->chosen_class();
            else if (check.type == "pick_run")
                answer = run_list->selected_run();
            if (!answer.isEmpty()) input.answers[step.id] = answer.toStdString();
        }
    const std::string device = window_->train_panel()->device_request().toStdString();
    const course::Exercise checked_exercise = *exercise;
    dock->set_checking(true);
    dock->show_problem({});
    const std::size_t index = *current_;
    queue_->submit(
        "check",
        [checked_exercise, input = std::move(input), device](JobChannel&) mutable {
            if (input.run) input.evaluation = session::read_run_evaluation(input.run->folder);
            course::DeviceSanityRunner sanity(device);
            input.sanity = &sanity;
            course::check_input(checked_exercise, input);  // a CourseError's message names the file
            CheckAnswer answer;
            answer.report =
                std::make_shared<const course::CheckReport>(course::check_exercise(checked_exercise, input));
            return QVariant::fromValue(answer);
        },
        [this, index](const QVariant& result) {
            ui::ExerciseDock* dock = window_->exercise_dock();
            dock->set_checking(false);
            if (!current_ || *current_ != index) return;  // another exercise was opened meanwhile
            const course::CheckReport& report = *result.value<CheckAnswer>().report;
            progress_.record_check(report, now());
            dock->show_report(report);
            const course::ExerciseProgress& mine = progress_.exercises[report.exercise];
            const auto used = mine.hints_used.find(dock->current_step());
            dock->show_hints(used == mine.hints_used.end() ? 0 : used->second);
            save();
            emit checked(report);
        },
        [this](const QString& message) {
            ui::ExerciseDock* dock = window_->exercise_dock();
            dock->set_checking(false);
            dock->show_problem(message);
            emit checkRefused(message);
        });
}

void CourseController::reveal_hint() {
    const course::Exercise* exercise = current();
    if (!exercise) return;
    ui::ExerciseDock* dock = window_->exercise_dock();
    const std::string step_id = dock->current_step();
    const auto step = std::find_if(exercise->steps.begin(), exercise->steps.end(),
                                   [&](const course::Step& s) { return s.id == step_id; });
    if (step == exercise->steps.end()) return;
    const int level = dock->hints_shown() + 1;
    if (level > static_cast<int>(step->hints.size())) return;
    progress_.record_hint(exercise->id, step_id, level);
    dock->show_hints(level);
    save();
    // A pointer hint shows where, at once.
    if (const std::string& where = step->hints[static_cast<std::size_t>(level - 1)].point_at; !where.empty())
        window_->point_at(text_of(where));
}

void CourseController::show_solution() {
    const course::Exercise* exercise = current();
    if (!exercise) return;
    project::Project solution;
    try {
        solution = project::read_project(exercise->solution);
    } catch (const std::exception& error) {
        window_->prompts().error(tr("The solution could not be opened.\n\n%1").arg(text_of(error.what())));
        return;
    }
    solution.name = exercise->title + " (solution)";
    if (!window_->new_project_from(std::move(solution), tr("%1 (solution)").arg(text_of(exercise->title)))) return;
    progress_.record_solution(exercise->id);
    window_->show_exercise_dock();
    save();
}

bool CourseController::export_report(const std::filesystem::path& file, QString* error) {
    // No export replaces what the course reads: the progress, an exercise's files, the project.
    std::vector<std::pair<std::filesystem::path, QString>> inputs{{progress_file_, tr("your course progress")}};
    if (!window_->document()->file().empty()) inputs.push_back({window_->document()->file(), tr("the open project")});
    for (const course::Exercise& exercise : exercises_)
        for (const std::filesystem::path& input :
             {exercise.folder / "exercise.json", exercise.instructions, exercise.starter, exercise.solution})
            inputs.push_back({input, tr("a file of the exercise '%1'").arg(text_of(exercise.id))});
    for (const auto& [input, what] : inputs)
        if (io::same_file(file, input)) {
            *error = tr("%1 is %2: choose another file for the report.").arg(path_text(file), what);
            return false;
        }
    QString learner = qEnvironmentVariable("USER");
    if (learner.isEmpty()) learner = qEnvironmentVariable("USERNAME");
    const nlohmann::json report = course::progress_report(progress_, exercises_, learner.toStdString(), now());
    QSaveFile out(QString::fromStdWString(file.wstring()));
    const QByteArray bytes = QByteArray::fromStdString(report.dump(2) + "\n");
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
        *error = tr("The report could not be written to %1: %2").arg(path_text(file), out.errorString());
        return false;
    }
    return true;
}

}  // namespace bps::app
