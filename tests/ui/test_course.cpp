// The course in the real window, on a real run on PoCL: a course folder with one exercise on an
// image folder ("dataset": "folder") whose starter lacks a hidden layer. The learner opens it from
// the Course tab, presses Check (not attempted while it is the starter; then a structure failure
// that names the output node, which a click selects), reveals hints one at a time (the progress
// file records 1, then 2), adds a Dense and a ReLU through the document, trains through the real
// training path and passes Check. The Course tab says "Passed", a new controller on the same
// progress file agrees, and the exported report reads back. A damaged progress file is never
// overwritten. Every wait is on a signal or a state, with a bound.
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTreeWidget>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/gui/course_controller.h"
#include "app/gui/job_queue.h"
#include "app/gui/training_controller.h"
#include "datasets/catalogue.h"
#include "engine/course/progress.h"
#include "engine/project/project.h"
#include "engine/session/run_evaluation.h"
#include "tests/support/files.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/training_fixtures.h"
#include "ui/course/course_panel.h"
#include "ui/course/exercise_dock.h"
#include "ui/dashboard/train_panel.h"
#include "ui/document/network_document.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/palette_dock.h"
#include "ui/main_window/main_window.h"
#include "ui/results/confused_pairs_list.h"
#include "ui/results/confusion_matrix_view.h"
#include "ui/results/results_panel.h"
#include "ui/start/start_page.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

constexpr int exercise_run_timeout_ms = 240000;  // a cold kernel cache on a busy machine
const char* const exercise_id = "folder-01-hidden-layer";

void write_text(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
}

// The starter: the images flattened straight into the output, no hidden layer.
project::Project starter_project(const fs::path& images) {
    project::Project project = test::two_class_folder_project(images);
    project.name = "starter";
    project.network.layers = {model::input_layer(), model::flatten("flatten"),
                              model::dense("out", 2, train::Initializer::glorot_uniform)};
    project.network.explicit_inputs = false;
    return project;
}

nlohmann::json exercise_json() {
    return {
        {"format", "backprop-studio-exercise"},
        {"version", 1},
        {"id", exercise_id},
        {"title", "A hidden layer"},
        {"track", "folder"},
        {"order", 1},
        {"dataset", "folder"},
        {"goal", "Add a hidden layer and train above 75% validation accuracy."},
        {"minutes", 5},
        {"concepts", {"hidden layer", "ReLU"}},
        {"instructions", "instructions.md"},
        {"starter", "starter.json"},
        {"solution", "solution.json"},
        {"seed", 7},
        {"steps",
         {{{"id", "build"},
           {"title", "Add a hidden layer"},
           {"text", "Put a Dense layer and a ReLU between Flatten and the output."},
           {"checks",
            {{{"kind", "structure"},
              {"type", "layer_order"},
              {"layers", {"Flatten", "Dense", "Activation", "Dense"}},
              {"pass", "A hidden layer lets the network combine pixels before it decides."}}}},
           {"hints",
            {{{"level", "nudge"}, {"text", "The output sees the pixels directly."}},
             {{"level", "pointer"}, {"text", "Drag a Dense from the palette."}, {"point_at", "dock:palette"}},
             {{"level", "near_solution"}, {"text", "Flatten, Dense (8), ReLU, then the output."}}}}},
          {{"id", "train"},
           {"title", "Train it"},
           {"text", "Press Train."},
           {"checks",
            {{{"kind", "outcome"},
              {"type", "validation_accuracy"},
              {"value", 0.75},
              {"epochs", 10},
              {"pass", "Validation accuracy is measured on images the network never trained on."}}}},
           {"hints", {{{"level", "nudge"}, {"text", "Press Train in the Train dock."}, {"point_at", "dock:train"}}}}}}},
    };
}

}  // namespace

class CourseTest : public QObject {
    Q_OBJECT
    QTemporaryDir folder_;
    std::unique_ptr<ui::MainWindow> window_;
    std::unique_ptr<app::TrainingController> training_;
    std::unique_ptr<app::CourseController> course_;
    QStringList errors_;

    fs::path here(const char* name) const { return fs::path(folder_.filePath(name).toStdString()); }
    fs::path progress_file() const { return here("progress/course-progress.json"); }
    ui::ExerciseDock* dock() const { return window_->exercise_dock(); }
    ui::CoursePanel* panel() const { return window_->course_panel(); }

    std::unique_ptr<ui::MainWindow> make_window() {
        ui::StartupFacts facts;
        facts.dataset_catalogue = datasets::catalogue();
        facts.data_root = here("data");
        facts.recovery_folder = here("recovery");
        auto window = std::make_unique<ui::MainWindow>(std::move(facts));
        window->prompts().error = [this](const QString& message) { errors_ << message; };
        window->prompts().unsaved_changes = [](const QString&) { return ui::UnsavedChoice::discard; };
        window->prompts().unsaved_runs = [](const QString&) { return ui::UnsavedChoice::discard; };
        window->resize(1280, 720);
        return window;
    }
    // Presses Check and waits for the report.
    course::CheckReport check() {
        QSignalSpy checked(course_.get(), &app::CourseController::checked);
        QTest::mouseClick(dock()->check_button(), Qt::LeftButton);
        if (!checked.wait(exercise_run_timeout_ms)) {
            qWarning("Check did not answer");
            return {};
        }
        return checked.takeFirst().at(0).value<course::CheckReport>();
    }
    // The dock's line for the check of `step`: its message and status.
    QTreeWidgetItem* result_item(int step) const {
        QTreeWidgetItem* step_item = dock()->results()->topLevelItem(step);
        return step_item && step_item->childCount() > 0 ? step_item->child(0) : nullptr;
    }
    int hints_in_file(const char* step) const {
        const course::CourseProgress read = course::read_progress(progress_file());
        const auto exercise = read.exercises.find(exercise_id);
        if (exercise == read.exercises.end()) return -1;
        const auto used = exercise->second.hints_used.find(step);
        return used == exercise->second.hints_used.end() ? 0 : used->second;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("Backprop Studio Tests");
        QCoreApplication::setApplicationName("course-test");
        qRegisterMetaType<session::RunRecord>();
        qRegisterMetaType<course::CheckReport>();
        QVERIFY(folder_.isValid());
        // The window's settings (the last project, the layout) in the temporary folder.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder_.filePath("settings"));
        QVERIFY(test::write_two_class_folder(here("halves"), 256));
        const fs::path exercise = here("course") / exercise_id;
        fs::create_directories(exercise);
        write_text(exercise / "exercise.json", exercise_json().dump(2));
        write_text(exercise / "instructions.md",
                   "# A hidden layer\n\nThe network so far:\n\n![diagram](diagram.png)\n");
        QImage diagram(16, 8, QImage::Format_RGB32);
        diagram.fill(Qt::blue);
        QVERIFY(diagram.save(QString::fromStdString((exercise / "diagram.png").string())));
        project::save_project(exercise / "starter.json", starter_project(here("halves")));
        project::Project solution = test::two_class_folder_project(here("halves"));
        project::save_project(exercise / "solution.json", solution);
    }
    void init() {
        errors_.clear();
        window_ = make_window();
        training_ = std::make_unique<app::TrainingController>(window_.get(), here("unsaved-runs"));
        course_ = std::make_unique<app::CourseController>(window_.get(), here("course"), progress_file());
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }
    void cleanup() {
        if (course_ && course_->queue()->busy()) {
            QSignalSpy idle(course_->queue(), &app::JobQueue::idle);
            QVERIFY(idle.wait(exercise_run_timeout_ms));
        }
        course_.reset();
        training_.reset();
        if (window_) window_->document()->undo_stack()->setClean();
        window_.reset();
    }

    void anExerciseIsOpenedFailedHintedFixedTrainedAndPassed() {
        // The Course tab lists the exercise under its track, not started, with its minutes.
        QCOMPARE(panel()->status_text(exercise_id), QString("Not started"));
        QCOMPARE(panel()->selected_exercise(), QString(exercise_id));
        QTreeWidgetItem* track = panel()->tree()->topLevelItem(0);
        QCOMPARE(track->child(0)->text(ui::CoursePanel::minutes_column), QString("5"));
        QVERIFY(panel()->details_label()->text().contains("Add a hidden layer and train above 75%"));

        const QSize smallest_before = window_->minimumSizeHint();
        window_->panels()->setCurrentWidget(panel());
        // Open exercise: the starter as a new unsaved project titled after the exercise, the dock shown.
        QTest::mouseClick(panel()->open_button(), Qt::LeftButton);
        QVERIFY(errors_.isEmpty());
        QVERIFY(window_->document()->file().empty());
        QVERIFY(window_->windowTitle().startsWith("A hidden layer"));
        QCOMPARE(window_->document()->network().layers.size(), std::size_t{3});
        QTRY_VERIFY_WITH_TIMEOUT(dock()->isVisible(), 5000);
        QCOMPARE(dock()->title_label()->text(), QString("A hidden layer"));
        QVERIFY(dock()->instructions()->toPlainText().contains("The network so far:"));
        // The instructions' image is found in the exercise's folder.
        const QVariant image =
            dock()->instructions()->document()->resource(QTextDocument::ImageResource, QUrl("diagram.png"));
        QVERIFY2(image.isValid() && !image.value<QImage>().isNull(), "the instructions' image was not found");
        QCOMPARE(panel()->status_text(exercise_id), QString("In progress"));
        QCOMPARE(course::read_progress(progress_file()).status(exercise_id), course::ExerciseStatus::in_progress);
        // The dock sits beside the canvas, tabified: the window still fits a 1280x720 laptop.
        QCOMPARE(window_->dockWidgetArea(dock()), Qt::RightDockWidgetArea);
        const QSize smallest = window_->minimumSizeHint();
        QVERIFY2(
            smallest.width() <= 1280 && smallest.height() <= 720,
            qPrintable(
                QString("%1x%2, before %3").arg(smallest.width()).arg(smallest.height()).arg(smallest_before.width())));

        // Check on the starter as it is: change it first.
        course::CheckReport report = check();
        QVERIFY(!report.attempted);
        QCOMPARE(report.checks.size(), std::size_t{2});
        QCOMPARE(report.checks[0].status, course::CheckStatus::not_attempted);
        QVERIFY2(QString::fromStdString(report.checks[0].message).startsWith("Change the starter first: "),
                 report.checks[0].message.c_str());
        QCOMPARE(result_item(0)->text(0), QString::fromStdString(report.checks[0].message));
        QCOMPARE(result_item(0)->data(0, Qt::UserRole + 1).toString(), QString("not_attempted"));

        // A changed project without the hidden layer fails, naming the output node; a click selects it.
        project::TrainingSettings training = window_->document()->project().training;
        training.epochs = 4;
        QVERIFY(!window_->document()->set_training(training));
        report = check();
        QVERIFY(report.attempted);
        QCOMPARE(report.checks[0].status, course::CheckStatus::failed);
        QCOMPARE(report.checks[0].node, std::string("out"));
        const QString failure = QString::fromStdString(report.checks[0].message);
        QVERIFY2(failure.contains("found no Activation after Dense 'out'"), qPrintable(failure));
        QCOMPARE(result_item(0)->text(0), failure);
        QCOMPARE(result_item(0)->data(0, Qt::UserRole + 1).toString(), QString("failed"));
        // The outcome needs a run first.
        QCOMPARE(report.checks[1].status, course::CheckStatus::missing);
        QCOMPARE(result_item(1)->text(0), QString::fromStdString(report.checks[1].message));
        window_->scene()->select_layers({});
        QTest::mouseClick(dock()->results()->viewport(), Qt::LeftButton, {},
                          dock()->results()->visualItemRect(result_item(0)).center());
        QCOMPARE(window_->scene()->selected_layers(), QStringList{"out"});
        QCOMPARE(window_->panels()->currentIndex(), 0);

        // Hints, one at a time, recorded in the progress file; the pointer hint raises the palette.
        QVERIFY(dock()->hint_button()->isEnabled());
        QTest::mouseClick(dock()->hint_button(), Qt::LeftButton);
        QCOMPARE(dock()->hints()->count(), 1);
        QVERIFY(dock()->hints()->item(0)->text().contains("The output sees the pixels directly."));
        QCOMPARE(hints_in_file("build"), 1);
        QTest::mouseClick(dock()->hint_button(), Qt::LeftButton);
        QCOMPARE(dock()->hints()->count(), 2);
        QVERIFY(dock()->hints()->item(1)->text().contains("Drag a Dense from the palette."));
        QCOMPARE(hints_in_file("build"), 2);
        QVERIFY(window_->palette_dock()->isVisible());
        QVERIFY2(window_->palette_dock()->graphicsEffect(), "the pointer hint did not highlight the palette");

        // The fix, through the document: Flatten -> Dense -> ReLU -> out.
        ui::NetworkDocument* document = window_->document();
        QVERIFY(!document->disconnect("flatten", "out"));
        std::string dense, relu;
        QVERIFY(!document->append_layer("Dense", "flatten", &dense));
        model::LayerSpec hidden = *document->layer(dense);
        hidden.units = 8;
        QVERIFY(!document->update_layer(dense, hidden));
        QVERIFY(!document->append_layer("ReLU", dense, &relu));
        QVERIFY(!document->connect(relu, "out"));
        QVERIFY(document->report().problems.empty());

        // Train, through the real training path.
        QSignalSpy ended(training_.get(), &app::TrainingController::runEnded);
        QTest::mouseClick(window_->train_panel()->train_button(), Qt::LeftButton);
        QVERIFY2(ended.wait(exercise_run_timeout_ms), "the run did not end");
        QCOMPARE(QString::fromStdString(ended.takeFirst().at(0).value<session::RunRecord>().receipt.outcome),
                 QString("finished"));

        report = check();
        QVERIFY2(report.passed(), course::report_text(report).c_str());
        QCOMPARE(report.checks[0].status, course::CheckStatus::passed);
        QCOMPARE(result_item(0)->text(0), QString::fromStdString(report.checks[0].message));
        QCOMPARE(result_item(1)->data(0, Qt::UserRole + 1).toString(), QString("passed"));
        QVERIFY(dock()->summary_label()->text().startsWith("Passed"));
        QCOMPARE(panel()->status_text(exercise_id), QString("Passed"));

        // A restart: a new controller reading the same file sees it passed, hints and checks kept.
        course_.reset();
        course_ = std::make_unique<app::CourseController>(window_.get(), here("course"), progress_file());
        QCOMPARE(course_->progress().status(exercise_id), course::ExerciseStatus::passed);
        QCOMPARE(panel()->status_text(exercise_id), QString("Passed"));
        QCOMPARE(course_->progress().exercises.at(exercise_id).checks_run, 3);

        // The teacher's report: refused over the progress file, written elsewhere and read back.
        QString error;
        QVERIFY(!course_->export_report(progress_file(), &error));
        QVERIFY2(error.contains("is your course progress"), qPrintable(error));
        course_->ask_export_path = [this](const QString&) { return folder_.filePath("report.json"); };
        window_->panels()->setCurrentWidget(panel());
        QTest::mouseClick(panel()->export_button(), Qt::LeftButton);
        QVERIFY(errors_.isEmpty());
        const nlohmann::json exported = nlohmann::json::parse(bps::test::read_text(here("report.json")));
        QCOMPARE(exported.at("format").get<std::string>(), std::string("backprop-studio-course-report"));
        QCOMPARE(exported.at("passed").get<int>(), 1);
        QCOMPARE(exported.at("total").get<int>(), 1);
        const nlohmann::json& row = exported.at("exercises").at(0);
        QCOMPARE(row.at("id").get<std::string>(), std::string(exercise_id));
        QCOMPARE(row.at("status").get<std::string>(), std::string("passed"));
        QCOMPARE(row.at("checks_run").get<int>(), 3);
        QCOMPARE(row.at("hints_used").at("build").get<int>(), 2);
        QCOMPARE(row.at("solution_shown").get<bool>(), false);
        QVERIFY(row.at("validation_accuracy").get<double>() >= 0.75);
    }

    // A progress file that cannot be read is shown on the Course tab and never written over.
    void aDamagedProgressFileIsNeverOverwritten() {
        const fs::path damaged = here("damaged-progress.json");
        const std::string text = "{\"format\": \"backprop-studio-course-progress\", \"exercises\": [";
        write_text(damaged, text);
        course_ = std::make_unique<app::CourseController>(window_.get(), here("course"), damaged);
        QVERIFY(!course_->progress_problem().isEmpty());
        QVERIFY(panel()->problem_label()->isVisibleTo(panel()));
        QVERIFY2(panel()->problem_label()->text().contains(QString::fromStdString(damaged.filename().string())),
                 qPrintable(panel()->problem_label()->text()));
        QVERIFY(course_->open_exercise(exercise_id));
        QTest::mouseClick(dock()->hint_button(), Qt::LeftButton);
        QCOMPARE(dock()->hints()->count(), 1);
        QCOMPARE(bps::test::read_text(damaged), text);
        QCOMPARE(panel()->status_text(exercise_id), QString("In progress"));  // kept in memory meanwhile
    }

    // Show solution asks first; declined, nothing changes; accepted, the solution opens as a new
    // unsaved project and the progress records it.
    void theSolutionIsAskedForFirstThenOpenedAndRecorded() {
        course_ =
            std::make_unique<app::CourseController>(window_.get(), here("course"), here("solution-progress.json"));
        QVERIFY(course_->open_exercise(exercise_id));
        QStringList questions;
        bool agree = false;
        dock()->confirm = [&](const QString& question) {
            questions << question;
            return agree;
        };
        QTest::mouseClick(dock()->solution_button(), Qt::LeftButton);
        QCOMPARE(questions.size(), 1);
        QVERIFY2(questions[0].startsWith("Show the solution of \"A hidden layer\"?"), qPrintable(questions[0]));
        QCOMPARE(window_->document()->network().layers.size(), std::size_t{3});  // still the starter
        QVERIFY(!course_->progress().exercises.at(exercise_id).solution_shown);
        agree = true;
        QTest::mouseClick(dock()->solution_button(), Qt::LeftButton);
        QCOMPARE(window_->document()->network().layers.size(), std::size_t{5});  // Flatten, Dense, ReLU, out
        QVERIFY(window_->document()->file().empty());
        QVERIFY(window_->windowTitle().startsWith("A hidden layer (solution)"));
        QVERIFY(course::read_progress(here("solution-progress.json")).exercises.at(exercise_id).solution_shown);
        QVERIFY(dock()->isVisible());
    }

    // The interpretation checks' answers: what the learner picked in the Results tab (never what the
    // panel selected by itself), as "true>predicted" and a class name; a new evaluation forgets them.
    void theResultsTabAnswersWithWhatTheLearnerPicked() {
        ui::ResultsPanel* results = window_->results_panel();
        auto evaluation = std::make_shared<session::RunEvaluation>();
        evaluation->class_names = {"T-shirt/top", "Trouser", "Shirt"};
        session::ConfusionMatrix matrix(3);
        for (int i = 0; i < 5; ++i) matrix.add(2, 0);  // Shirt taken for T-shirt/top: the worst pair
        matrix.add(1, 2);
        evaluation->validation.push_back({1, matrix});
        results->show_evaluation(evaluation, "Validation");
        QVERIFY(results->chosen_pair().isEmpty());
        QVERIFY(results->chosen_class().isEmpty());
        emit results->pairs_list()->pairClicked(2, 0);
        QCOMPARE(results->chosen_pair(), QString("Shirt>T-shirt/top"));
        emit results->matrix_view()->classClicked(1);
        QCOMPARE(results->chosen_class(), QString("Trouser"));
        results->show_evaluation(evaluation, "Validation");
        QVERIFY(results->chosen_pair().isEmpty());
    }

    // A first start (no project before) with the Start page turned off opens on the Course tab with
    // the first exercise selected (with it on, the Start page offers the course: test_start_page.cpp).
    void aFirstStartOffersTheCourse() {
        QSettings().clear();
        QSettings().setValue(ui::StartPage::show_at_start_key, false);
        auto window = make_window();
        app::CourseController course(window.get(), here("course"), here("first-start-progress.json"));
        window->start();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->course_panel()));
        QVERIFY(!window->palette_dock()->isVisible());  // the editor's docks stay with the Network tab
        QCOMPARE(window->course_panel()->selected_exercise(), QString(exercise_id));
    }
};

BACKPROP_QT_TEST(CourseTest)
#include "test_course.moc"
