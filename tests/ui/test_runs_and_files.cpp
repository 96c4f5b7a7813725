// Runs and files in the real window with real runs on PoCL (issue 49): an unsaved project's runs
// are never lost (replacing the project asks, and File ▸ Recover Unsaved Runs… opens the project
// again with its runs), Save and Export dialogs open beside the project or in Documents (never in
// the studio's hidden data folder), and a stopped run still gets a test accuracy. Every wait is
// on a signal or a state, with a bound.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>
#include <memory>

#include "app/gui/training_controller.h"
#include "engine/runs/run_record.h"
#include "tests/support/two_class_images.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/training_fixtures.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/run_status.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_curves.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/dialog_folder.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/unsaved_runs_dialog.h"
#include "ui/results/results_panel.h"

using namespace bps;
using RunState = ui::TrainPanel::RunState;

namespace {
constexpr int runs_timeout_ms = 180000;  // a cold kernel cache on a busy machine

QString folder_of(const QString& path) {
    return QDir::cleanPath(QFileInfo(path).absolutePath());
}
QString documents() {
    return QDir::cleanPath(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation));
}
}  // namespace

class RunsAndFilesTest : public QObject {
    Q_OBJECT
    QTemporaryDir shared_;  // the image folder, written once
    std::unique_ptr<QTemporaryDir> folder_;
    std::unique_ptr<ui::MainWindow> window_;
    std::unique_ptr<app::TrainingController> controller_;

    std::filesystem::path images() const { return std::filesystem::path(shared_.filePath("halves").toStdString()); }
    std::filesystem::path here(const char* name) const { return folder_->filePath(name).toStdString(); }
    ui::TrainPanel* panel() const { return window_->train_panel(); }
    ui::RunList* run_list() const { return window_->dashboard()->run_list(); }
    void press(QPushButton* button) {
        QVERIFY2(button->isEnabled(), qPrintable(button->objectName() + " is disabled"));
        QTest::mouseClick(button, Qt::LeftButton);
    }
    session::RunRecord wait_for_end(QSignalSpy& ended) {
        if (ended.isEmpty() && !ended.wait(runs_timeout_ms)) {
            qWarning("the run did not end; status: %s", qPrintable(window_->dashboard()->status()->stage_text()));
            return {};
        }
        return ended.takeFirst().at(0).value<session::RunRecord>();
    }
    // An unsaved project named `name` (as a template is), trained once to its end.
    session::RunRecord train_unsaved(const char* name) {
        project::Project project = test::two_class_folder_project(images());
        project.name = name;
        window_->document()->reset(project);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        if (!controller_->train()) return {};
        return wait_for_end(ended);
    }
    QString saved_project(const char* name) {
        project::save_project(here(name), test::two_class_folder_project(images()));
        return folder_->filePath(name);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<session::RunRecord>();
        QVERIFY(test::write_two_class_folder(images(), 256));
    }
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
        ui::StartupFacts facts;
        facts.data_root = here("data");
        facts.recovery_folder = here("recovery");
        window_ = std::make_unique<ui::MainWindow>(std::move(facts));
        window_->prompts().error = [](const QString& message) { QFAIL(qPrintable("unexpected error: " + message)); };
        window_->resize(1400, 900);
        controller_ = std::make_unique<app::TrainingController>(window_.get(), here("unsaved-runs"));
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }
    void cleanup() {
        controller_.reset();
        if (window_) window_->document()->undo_stack()->setClean();
        window_.reset();
        folder_.reset();
    }

    // The learner trains a template never saved, then opens another project: the question names
    // the runs; after Discard they are gone from the list, but Recover Unsaved Runs lists the
    // project and opens it again with its run, and Save then keeps the run beside the file.
    void anUnsavedTemplatesRunIsAskedAboutAndRecovered() {
        const session::RunRecord record = train_unsaved("halves template");
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("finished"));
        QStringList questions;
        window_->prompts().unsaved_runs = [&](const QString& question) {
            questions.append(question);
            return ui::UnsavedChoice::discard;
        };
        QVERIFY(window_->open_project(saved_project("other.json")));
        QCOMPARE(questions.size(), 1);
        QVERIFY2(questions[0].contains("was never saved, and its 1 training run"), qPrintable(questions[0]));
        QVERIFY(run_list()->run_ids().isEmpty());  // the other project's runs: none

        std::vector<ui::UnsavedProjectEntry> listed;
        window_->prompts().recover_unsaved_runs = [&](const std::vector<ui::UnsavedProjectEntry>& projects) {
            listed = projects;
            return projects.empty() ? std::filesystem::path() : projects.front().folder;
        };
        QAction* recover = window_->findChild<QAction*>("recoverUnsavedRunsAction");
        QVERIFY(recover);
        QCOMPARE(recover->text(), QString("Recover &Unsaved Runs…"));
        recover->trigger();
        QCOMPARE(listed.size(), std::size_t{1});
        QCOMPARE(listed[0].name, QString("halves template"));
        QCOMPARE(listed[0].runs, 1);
        QCOMPARE(listed[0].folder, record.folder.parent_path());
        QVERIFY(listed[0].folder.parent_path() == here("unsaved-runs"));
        QVERIFY(!listed[0].last_run.isEmpty());
        // Open again: unsaved, under its own name, with its run in the run list.
        QVERIFY(window_->document()->file().empty());
        QCOMPARE(window_->document()->project().name, std::string("halves template"));
        QVERIFY2(window_->windowTitle().startsWith("halves template"), qPrintable(window_->windowTitle()));
        QCOMPARE(run_list()->run_ids(), QStringList{QString::fromStdString(record.id())});
        // Its runs are counted again before it is replaced (Cancel keeps it).
        window_->prompts().unsaved_runs = [&](const QString& question) {
            questions.append(question);
            return ui::UnsavedChoice::cancel;
        };
        QVERIFY(!window_->new_project("mlp"));
        QCOMPARE(questions.size(), 2);
        // Saved: the run goes beside the project file, and nothing is left to recover.
        QVERIFY(window_->save_to(folder_->filePath("kept.json")));
        QVERIFY(std::filesystem::exists(here("kept.runs") / record.id() / "receipt.json"));
        QVERIFY(!std::filesystem::exists(here("kept.runs") / "project.json"));
        QCOMPARE(run_list()->run_ids(), QStringList{QString::fromStdString(record.id())});
        listed.clear();
        recover->trigger();
        QVERIFY(listed.empty());
    }

    // A new template while an unsaved project's run trains: the run is stopped, the runs are
    // asked about, and once it ends the list shows the new project's runs (before, it went on
    // listing the old project's, which then vanished); the stopped run can be recovered.
    void aRunStillTrainingWhenANewProjectStartsIsAskedAboutAndRecoverable() {
        project::Project project = test::two_class_folder_project(images());
        project.name = "live";
        project.training.epochs = 50;  // still training when Open is chosen
        window_->document()->reset(project);
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_COMPARE_WITH_TIMEOUT(panel()->run_state(), RunState::paused, runs_timeout_ms);
        window_->prompts().stop_run = [](const QString&) { return true; };
        QStringList questions;
        window_->prompts().unsaved_runs = [&](const QString& question) {
            questions.append(question);
            return ui::UnsavedChoice::discard;
        };
        QVERIFY(window_->new_project("mlp"));
        QCOMPARE(questions.size(), 1);
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("stopped"));
        QVERIFY(run_list()->run_ids().isEmpty());
        window_->prompts().recover_unsaved_runs = [&](const std::vector<ui::UnsavedProjectEntry>& projects) {
            return projects.size() == 1 ? projects.front().folder : std::filesystem::path();
        };
        QVERIFY(window_->recover_unsaved_runs());
        QCOMPARE(run_list()->run_ids(), QStringList{QString::fromStdString(record.id())});
        QCOMPARE(window_->document()->project().training.epochs, 50);
    }

    // The dialog itself: one row per project (name, last run, runs, folder); Open picks the
    // selected one; with none, it says so.
    void theRecoverDialogListsProjectsAndPicksOne() {
        std::vector<ui::UnsavedProjectEntry> entries(2);
        entries[0] = {here("a"), "cnn", "26/11/2026 10:00", 2};
        entries[1] = {here("b"), "Untitled", "25/11/2026 09:00", 1};
        ui::UnsavedRunsDialog dialog(entries);
        QTreeWidget* list = dialog.findChild<QTreeWidget*>("unsavedRunsList");
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 2);
        QCOMPARE(list->topLevelItem(0)->text(0), QString("cnn"));
        QCOMPARE(list->topLevelItem(0)->text(1), QString("26/11/2026 10:00"));
        QCOMPARE(list->topLevelItem(0)->text(2), QString("2"));
        QCOMPARE(list->topLevelItem(1)->text(3), QDir::toNativeSeparators(QString::fromStdString(here("b").string())));
        QPushButton* open = dialog.findChild<QPushButton*>("openUnsavedRunsButton");
        QVERIFY(open && open->isEnabled());
        QVERIFY(dialog.chosen() == here("a"));
        list->setCurrentItem(list->topLevelItem(1));
        QVERIFY(dialog.chosen() == here("b"));

        ui::UnsavedRunsDialog empty({});
        QVERIFY(!empty.findChild<QPushButton*>("openUnsavedRunsButton")->isEnabled());
        QVERIFY(empty.findChild<QLabel*>("unsavedRunsExplanation")->text().startsWith("No unsaved project has runs"));
        QVERIFY(empty.chosen().empty());
    }

    // Save As and every export suggest a file in Documents for a project never saved (not in
    // the studio's hidden folder where its runs are), and beside the project file once saved.
    void saveAndExportDialogsOpenBesideTheProjectOrInDocuments() {
        const session::RunRecord record = train_unsaved("halves");
        QVERIFY(!record.id().empty());
        const QString id = QString::fromStdString(record.id());
        QStringList asked;
        window_->prompts().save_path = [&](const QString& suggested) {
            asked.append(suggested);
            return QString();
        };
        run_list()->ask_export_path = [&](const QString& suggested) {
            asked.append(suggested);
            return QString();
        };
        run_list()->ask_script_path = run_list()->ask_export_path;
        window_->results_panel()->ask_save_path = [&](const QString&, const QString& suggested, const QString&) {
            asked.append(suggested);
            return QString();
        };
        const auto ask_everything = [&] {
            asked.clear();
            QVERIFY(!window_->save_as());
            run_list()->export_weights_asking(id);
            run_list()->export_script_asking(id, ui::RunList::ScriptKind::pytorch);
            QMenu* results_export = window_->results_panel()->export_button()->menu();
            QVERIFY(results_export && !results_export->actions().isEmpty());
            results_export->actions().front()->trigger();
            QCOMPARE(asked.size(), 4);
        };
        ask_everything();
        QCOMPARE(QFileInfo(asked[0]).fileName(), QString("halves.json"));
        QCOMPARE(QFileInfo(asked[3]).fileName(), QString("confusion-matrix.png"));
        for (const QString& path : asked) QCOMPARE(folder_of(path), documents());
        QCOMPARE(QDir::cleanPath(ui::dialog_folder(window_->dashboard()->curves())), documents());

        QVERIFY(window_->save_to(folder_->filePath("saved.json")));
        const QString beside = QDir::cleanPath(folder_->path());
        ask_everything();
        QCOMPARE(asked[0], folder_->filePath("saved.json"));
        for (const QString& path : asked) QCOMPARE(folder_of(path), beside);
        QVERIFY2(asked[2].endsWith("_pytorch.py"), qPrintable(asked[2]));
        QCOMPARE(QDir::cleanPath(ui::dialog_folder(window_->dashboard()->curves())), beside);
    }

    // Stop keeps the weights trained so far and, with "Test when stopped" (on by default), tests
    // them: the status says the accuracy and where the weights come from, the run list shows it.
    void aStoppedRunGetsItsTestAccuracy() {
        controller_->adjust_setup = [](session::JobSetup& setup) {
            setup.report_interval = std::chrono::milliseconds(0);
            setup.data = test::two_class_data();  // with a test split (an image folder has none)
        };
        QCheckBox* box = window_->findChild<QCheckBox*>("testWhenStopped");
        QVERIFY(box && box->isChecked());
        QVERIFY(window_->open_project(saved_project("halves.json")));
        QSignalSpy ended(controller_.get(), &app::TrainingController::runEnded);
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_COMPARE_WITH_TIMEOUT(panel()->run_state(), RunState::paused, runs_timeout_ms);
        // Two batches trained (a run stopped before its first batch has nothing to test).
        press(panel()->step_button());
        QTRY_COMPARE_WITH_TIMEOUT(controller_->record().history.batches.size(), std::size_t{1}, runs_timeout_ms);
        press(panel()->step_button());
        QTRY_COMPARE_WITH_TIMEOUT(controller_->record().history.batches.size(), std::size_t{2}, runs_timeout_ms);
        press(panel()->stop_button());
        const session::RunRecord record = wait_for_end(ended);
        QCOMPARE(QString::fromStdString(record.receipt.outcome), QString("stopped"));
        QVERIFY(record.receipt.test.has_value());
        const QString accuracy = QString::number(record.receipt.test->accuracy * 100.0, 'f', 1) + "%";
        const QString headline = window_->dashboard()->status()->message_headline();
        QCOMPARE(headline, "Stopped: test accuracy " + accuracy + " from the weights at epoch 1, batch 2");
        QTreeWidgetItem* row = run_list()->tree()->topLevelItem(0);
        QVERIFY(row);
        QCOMPARE(row->text(ui::RunList::test_column),
                 QString::number(record.receipt.test->accuracy * 100.0, 'f', 1) + " %");
        QVERIFY(session::read_run(record.folder).receipt.test.has_value());

        // Off: a stop ends at once, with no test.
        box->setChecked(false);
        press(panel()->train_button());
        press(panel()->pause_button());
        QTRY_COMPARE_WITH_TIMEOUT(panel()->run_state(), RunState::paused, runs_timeout_ms);
        press(panel()->stop_button());
        const session::RunRecord untested = wait_for_end(ended);
        QVERIFY(!untested.receipt.test.has_value());
        QCOMPARE(window_->dashboard()->status()->message_headline(),
                 QString("Stopped: the weights trained so far are kept"));
    }
};

BACKPROP_QT_TEST(RunsAndFilesTest)

#include "test_runs_and_files.moc"
