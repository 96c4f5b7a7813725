// The window's file handling under the offscreen platform: open, save and their failures, the
// title, unsaved-changes questions, recent files, autosave and recovery after a crash, the first
// start's size and Reset layout. QSettings and the recovery folder live in temporary folders, and
// the window's dialogs are replaced by code (WindowPrompts), so nothing here touches the user's
// own settings or waits on a modal dialog.
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <QWindow>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "datasets/catalogue.h"
#include "engine/project/project.h"
#include "tests/ui/qt_test_class.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/project_recovery.h"
#include "ui/main_window/recent_files.h"
#include "ui/main_window/window_layout.h"

namespace fs = std::filesystem;
using bps::ui::MainWindow;
using bps::ui::UnsavedChoice;

namespace {

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
}

// The mlp example with fields no version of Backprop Studio writes: at the top, in a node and in
// the dataset.
nlohmann::json mlp_with_unknown_fields() {
    nlohmann::json json = nlohmann::json::parse(bps::project::example_text("mlp"));
    json["future_top_level"] = {{"colour", "teal"}, {"level", 3}};
    for (nlohmann::json& node : json["network"]["nodes"])
        if (node["name"] == "fc1") node["future_node_field"] = "keep me";
    json["dataset"]["future_dataset_field"] = {1, 2, 3};
    return json;
}

// The document edit the tests make: fc1 gets 128 units instead of 256.
void set_fc1_units(bps::ui::NetworkDocument& document, int units) {
    bps::model::LayerSpec fc1 = *document.layer("fc1");
    fc1.units = units;
    const auto refused = document.update_layer("fc1", fc1);
    QVERIFY2(!refused, refused ? refused->c_str() : "");
}

const nlohmann::json* node_named(const nlohmann::json& json, const std::string& name) {
    for (const nlohmann::json& node : json["network"]["nodes"])
        if (node["name"] == name) return &node;
    return nullptr;
}

}  // namespace

class ProjectFilesTest : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> settings_dir_;
    std::unique_ptr<QTemporaryDir> files_;  // the learner's project files, per test
    fs::path recovery_folder_;
    QStringList errors_;
    QStringList restore_questions_;
    UnsavedChoice unsaved_answer_ = UnsavedChoice::cancel;
    int unsaved_questions_ = 0;
    bool restore_answer_ = true;

    fs::path file(const std::string& name) const { return fs::path(files_->path().toStdString()) / name; }

    std::unique_ptr<MainWindow> make_window() {
        bps::ui::StartupFacts facts;
        facts.dataset_catalogue = bps::datasets::catalogue();
        facts.data_root = fs::path(files_->path().toStdString()) / "data";
        facts.recovery_folder = recovery_folder_;
        auto window = std::make_unique<MainWindow>(std::move(facts));
        bps::ui::WindowPrompts& prompts = window->prompts();
        prompts.error = [this](const QString& message) { errors_.append(message); };
        prompts.unsaved_changes = [this](const QString&) {
            ++unsaved_questions_;
            return unsaved_answer_;
        };
        prompts.restore_recovery = [this](const QString& question) {
            restore_questions_.append(question);
            return restore_answer_;
        };
        prompts.open_path = [] { return QString(); };
        prompts.save_path = [](const QString&) { return QString(); };
        return window;
    }

    fs::path write_mlp(const std::string& name) {
        const fs::path path = file(name);
        write_text(path, mlp_with_unknown_fields().dump(2));
        return path;
    }

    QStringList recovery_files() const {
        return QDir(QString::fromStdString(recovery_folder_.string())).entryList({"*.json"}, QDir::Files);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("Backprop Studio Tests");
        QCoreApplication::setApplicationName("project-files-test");
        settings_dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(settings_dir_->isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir_->path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_dir_->path());
    }

    void init() {
        QSettings().clear();
        files_ = std::make_unique<QTemporaryDir>();
        QVERIFY(files_->isValid());
        recovery_folder_ = fs::path(files_->path().toStdString()) / "recovery";
        errors_.clear();
        restore_questions_.clear();
        unsaved_answer_ = UnsavedChoice::cancel;
        unsaved_questions_ = 0;
        restore_answer_ = true;
    }

    void aSaveKeepsFieldsThisVersionDoesNotKnowBesideTheEdit() {
        const fs::path path = write_mlp("future.json");
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(path.string())));
        QVERIFY(errors_.isEmpty());
        set_fc1_units(*window->document(), 128);
        QVERIFY(window->document()->is_modified());
        QVERIFY(window->save());
        QVERIFY(!window->document()->is_modified());

        const nlohmann::json saved = nlohmann::json::parse(read_text(path));
        QCOMPARE(saved["future_top_level"]["colour"].get<std::string>(), std::string("teal"));
        QCOMPARE(saved["future_top_level"]["level"].get<int>(), 3);
        QVERIFY(saved["dataset"]["future_dataset_field"] == nlohmann::json({1, 2, 3}));
        const nlohmann::json* fc1 = node_named(saved, "fc1");
        QVERIFY(fc1);
        QCOMPARE((*fc1)["future_node_field"].get<std::string>(), std::string("keep me"));
        QCOMPARE((*fc1)["params"]["units"].get<int>(), 128);
        // And the saved file opens again as the edited project.
        const bps::project::Project again = bps::project::read_project(path);
        QCOMPARE(again.network.layers.at(2).units, 128);
    }

    void theTitleShowsTheFileNameAndAStarOnlyUntilSaved() {
        const fs::path path = write_mlp("lenet.json");
        auto window = make_window();
        QCOMPARE(window->windowTitle(), QString("Untitled[*] — Backprop Studio"));
        QVERIFY(window->open_project(QString::fromStdString(path.string())));
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QCOMPARE(window->windowTitle(), QString("lenet.json[*] — Backprop Studio"));
        QVERIFY(!window->isWindowModified());
        QCOMPARE(window->windowHandle()->title(), QString("lenet.json — Backprop Studio"));

        set_fc1_units(*window->document(), 64);
        QVERIFY(window->isWindowModified());
        QCOMPARE(window->windowHandle()->title(), QString("lenet.json* — Backprop Studio"));
        window->document()->undo_stack()->undo();  // back at the saved state: no star
        QVERIFY(!window->isWindowModified());
        window->document()->undo_stack()->redo();
        QVERIFY(window->isWindowModified());

        window->save_action()->trigger();
        QVERIFY(!window->isWindowModified());
        QCOMPARE(window->windowHandle()->title(), QString("lenet.json — Backprop Studio"));

        QVERIFY(window->save_to(QString::fromStdString(file("renamed.json").string())));
        QCOMPARE(window->windowTitle(), QString("renamed.json[*] — Backprop Studio"));
        unsaved_answer_ = UnsavedChoice::discard;
        window->close();
    }

    void theRecoveryFileIsOfferedAfterACrashAndRestoresTheEditedProject() {
        const fs::path path = write_mlp("mine.json");
        const std::string original = read_text(path);
        {
            auto window = make_window();
            QVERIFY(window->open_project(QString::fromStdString(path.string())));
            QVERIFY(window->recovery()->timer()->isActive());
            QCOMPARE(window->recovery()->timer()->interval(), 30'000);
            QVERIFY(!window->recovery()->autosave());  // unmodified: nothing to write
            QVERIFY(recovery_files().isEmpty());
            set_fc1_units(*window->document(), 32);
            QVERIFY(!window->recovery()->autosave());
            QCOMPARE(recovery_files().size(), 1);
            QCOMPARE(read_text(path), original);  // the learner's file is untouched
            // The window goes without a clean close: the recovery file stays behind, as in a crash.
        }
        QCOMPARE(recovery_files().size(), 1);

        auto window = make_window();
        window->start();
        QVERIFY(window->offer_recovery());
        QCOMPARE(restore_questions_.size(), 1);
        QVERIFY2(restore_questions_[0].startsWith("Restore unsaved changes to mine.json from "),
                 qPrintable(restore_questions_[0]));
        bps::ui::NetworkDocument* document = window->document();
        QVERIFY(document->is_modified());
        QVERIFY(window->isWindowModified());
        QCOMPARE(QString::fromStdString(document->file().string()), QString::fromStdString(path.string()));
        QCOMPARE(document->layer("fc1")->units, 32);
        QCOMPARE(read_text(path), original);
        // The old recovery file gave way to this window's own.
        QCOMPARE(recovery_files().size(), 1);
        QVERIFY(QFile::exists(window->recovery()->file()));

        // Saving puts the changes in the learner's file and removes the recovery file.
        QVERIFY(window->save());
        QVERIFY(recovery_files().isEmpty());
        QCOMPARE(bps::project::read_project(path).network.layers.at(2).units, 32);
    }

    void aDeclinedRecoveryFileIsDeletedAndACleanCloseLeavesNone() {
        const fs::path path = write_mlp("mine.json");
        {
            auto window = make_window();
            QVERIFY(window->open_project(QString::fromStdString(path.string())));
            set_fc1_units(*window->document(), 16);
            QVERIFY(!window->recovery()->autosave());
        }
        restore_answer_ = false;
        auto window = make_window();
        window->start(QString::fromStdString(path.string()));
        QVERIFY(!window->offer_recovery());
        QCOMPARE(restore_questions_.size(), 1);
        QVERIFY(recovery_files().isEmpty());
        QCOMPARE(window->document()->layer("fc1")->units, 256);
        QVERIFY(!window->document()->is_modified());

        set_fc1_units(*window->document(), 8);
        QVERIFY(!window->recovery()->autosave());
        QCOMPARE(recovery_files().size(), 1);
        unsaved_answer_ = UnsavedChoice::discard;
        QVERIFY(window->close());
        QCOMPARE(unsaved_questions_, 1);
        QVERIFY(recovery_files().isEmpty());
    }

    void aRunningWindowsRecoveryFileIsNotOfferedToAnother() {
        const fs::path path = write_mlp("busy.json");
        auto first = make_window();
        QVERIFY(first->open_project(QString::fromStdString(path.string())));
        set_fc1_units(*first->document(), 5);
        QVERIFY(!first->recovery()->autosave());
        auto second = make_window();
        QVERIFY(!second->offer_recovery());
        QVERIFY(restore_questions_.isEmpty());
        QCOMPARE(recovery_files().size(), 1);
        first.reset();  // gone without a clean close: now it is left behind
        QCOMPARE(second->recovery()->left_behind().size(), std::size_t{1});
    }

    void aDamagedFileKeepsTheCurrentProjectAndTheMessageNamesIt() {
        const fs::path good = write_mlp("good.json");
        const fs::path broken = file("broken.json");
        write_text(broken, "{\"format\": \"backprop-studio-project\", \"version\": 1, \"network\": ");
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(good.string())));
        set_fc1_units(*window->document(), 100);
        unsaved_answer_ = UnsavedChoice::discard;
        QVERIFY(!window->open_project(QString::fromStdString(broken.string())));
        QCOMPARE(errors_.size(), 1);
        QVERIFY2(errors_[0].contains("broken.json"), qPrintable(errors_[0]));
        QCOMPARE(QString::fromStdString(window->document()->file().string()), QString::fromStdString(good.string()));
        QCOMPARE(window->document()->layer("fc1")->units, 100);
        QCOMPARE(window->windowTitle(), QString("good.json[*] — Backprop Studio"));
    }

    void aFailedSaveSaysWhyAndKeepsTheDocumentModified() {
        const fs::path path = write_mlp("kept.json");
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(path.string())));
        set_fc1_units(*window->document(), 12);
        const fs::path nowhere = file("no-such-folder") / "x.json";
        QVERIFY(!window->save_to(QString::fromStdString(nowhere.string())));
        QCOMPARE(errors_.size(), 1);
        QVERIFY2(errors_[0].contains("x.json") && errors_[0].contains("does not exist"), qPrintable(errors_[0]));
        QVERIFY(window->document()->is_modified());
        QVERIFY(window->isWindowModified());
        QCOMPARE(QString::fromStdString(window->document()->file().string()), QString::fromStdString(path.string()));

        // A folder the user may not write to (root may write anywhere: then only the above counts).
        const fs::path locked = file("locked");
        fs::create_directory(locked);
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        const bool really_locked = !std::ofstream(locked / "probe").good();
        if (really_locked) {
            QVERIFY(!window->save_to(QString::fromStdString((locked / "y.json").string())));
            QCOMPARE(errors_.size(), 2);
            QVERIFY2(errors_[1].contains("y.json"), qPrintable(errors_[1]));
            QVERIFY(window->document()->is_modified());
        }
        fs::permissions(locked, fs::perms::owner_all);
        QVERIFY(!fs::exists(path.parent_path() / "x.json"));
    }

    void unsavedChangesAreAskedAboutBeforeNewAndCancelKeepsThem() {
        const fs::path path = write_mlp("asked.json");
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(path.string())));
        set_fc1_units(*window->document(), 77);

        unsaved_answer_ = UnsavedChoice::cancel;
        QVERIFY(!window->new_project("cnn"));
        QCOMPARE(unsaved_questions_, 1);
        QCOMPARE(window->document()->layer("fc1")->units, 77);
        QVERIFY(!window->close());
        QCOMPARE(unsaved_questions_, 2);

        unsaved_answer_ = UnsavedChoice::save;  // saves to asked.json, then replaces
        QVERIFY(window->new_project(MainWindow::blank_template));
        QCOMPARE(bps::project::read_project(path).network.layers.at(2).units, 77);
        const bps::model::NetworkSpec& blank = window->document()->network();
        QCOMPARE(blank.layers.size(), std::size_t{2});
        QCOMPARE(blank.layers[0].type, bps::model::LayerType::input);
        QCOMPARE(blank.layers[1].type, bps::model::LayerType::dense);
        QCOMPARE(blank.layers[1].units, 10);
        QCOMPARE(blank.layers[1].inputs, std::vector<std::string>{"input"});
        QCOMPARE(window->windowTitle(), QString("Untitled[*] — Backprop Studio"));
        QVERIFY(!window->isWindowModified());

        // Every template of the New menu opens.
        QCOMPARE(window->new_menu()->actions().size(),
                 static_cast<int>(bps::project::example_names().size()) + 2);  // blank and a separator
        for (const std::string& name : bps::project::example_names()) {
            auto* action = window->new_menu()->findChild<QAction*>(QString::fromStdString("new_" + name));
            QVERIFY(action);
            action->trigger();
            QCOMPARE(window->document()->project().name, name);
        }
    }

    void recentFilesAreNewestFirstAndAMissingOneIsRemovedWithAMessage() {
        {
            QSettings settings(files_->filePath("recent.ini"), QSettings::IniFormat);
            bps::ui::RecentFiles recent(settings);
            recent.add("/p/a.json");
            recent.add("/p/b.json");
            recent.add("/p/c.json");
            QCOMPARE(recent.files(), QStringList({"/p/c.json", "/p/b.json", "/p/a.json"}));
            recent.add("/p/a.json");
            QCOMPARE(recent.files(), QStringList({"/p/a.json", "/p/c.json", "/p/b.json"}));
            for (int index = 0; index < 10; ++index) recent.add(QString("/q/%1.json").arg(index));
            QCOMPARE(recent.files().size(), bps::ui::RecentFiles::max_count);
            QCOMPARE(recent.files().front(), QString("/q/9.json"));
            recent.remove("/q/9.json");
            QCOMPARE(recent.files().front(), QString("/q/8.json"));
        }

        const fs::path first = write_mlp("first.json");
        const fs::path second = write_mlp("second.json");
        auto window = make_window();
        QVERIFY(window->open_project(QString::fromStdString(first.string())));
        QVERIFY(window->open_project(QString::fromStdString(second.string())));
        QList<QAction*> actions = window->recent_menu()->actions();
        QCOMPARE(actions.size(), 2);
        QCOMPARE(actions[0]->data().toString(), QString::fromStdString(second.string()));
        QCOMPARE(actions[1]->data().toString(), QString::fromStdString(first.string()));

        fs::remove(first);
        actions[1]->trigger();
        QCOMPARE(errors_.size(), 1);
        QVERIFY2(errors_[0].contains("first.json") && errors_[0].contains("no longer exists"), qPrintable(errors_[0]));
        actions = window->recent_menu()->actions();
        QCOMPARE(actions.size(), 1);
        QCOMPARE(actions[0]->data().toString(), QString::fromStdString(second.string()));
        QCOMPARE(QString::fromStdString(window->document()->file().string()), QString::fromStdString(second.string()));

        // A new window (the next start) lists the same.
        auto next = make_window();
        QCOMPARE(next->recent_menu()->actions().size(), 1);
    }

    void theFirstStartOpensTheCnnTemplateOnAboutEightyPercentOfTheScreen() {
        auto window = make_window();
        window->start();
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        const QRect frame = window->geometry();
        // 80% of the screen, or the window's minimum where that is more (this test's 800x600
        // screen is narrower than the editor's docks need), never more than the screen.
        const QSize needed = window->minimumSizeHint();
        const double width =
            std::min<double>(available.width(), std::max(available.width() * 0.8, double(needed.width())));
        const double height =
            std::min<double>(available.height(), std::max(available.height() * 0.8, double(needed.height())));
        QVERIFY2(std::abs(frame.width() - width) <= 2, qPrintable(QString::number(frame.width())));
        QVERIFY2(std::abs(frame.height() - height) <= 2, qPrintable(QString::number(frame.height())));
        QVERIFY(frame.width() <= available.width() && frame.height() <= available.height());
        QVERIFY(std::abs(frame.center().x() - available.center().x()) <= 2);
        QVERIFY(std::abs(frame.center().y() - available.center().y()) <= 2);
        QCOMPARE(window->document()->project().name, std::string("cnn"));
        QCOMPARE(window->document()->project().dataset.name, std::string("fashion-mnist"));
        QVERIFY(window->document()->file().empty());
        QVERIFY(!window->document()->is_modified());
        QCOMPARE(window->panels()->tabText(0), QString("Network"));
        QCOMPARE(window->panels()->widget(0)->objectName(), QString("editorCanvasSlot"));

        QCOMPARE(bps::ui::first_start_geometry(QRect(0, 0, 1600, 1000)), QRect(160, 100, 1280, 800));
        // A laptop's 1280x720 with a window that needs 1150x600: that, centred, on the screen.
        QCOMPARE(bps::ui::first_start_geometry(QRect(0, 0, 1280, 720), QSize(1150, 600)), QRect(65, 60, 1150, 600));
        // A window that needs more than the screen gets the whole screen, not a place off its edge.
        QCOMPARE(bps::ui::first_start_geometry(QRect(0, 30, 1280, 690), QSize(1400, 500)), QRect(0, 99, 1280, 552));
    }

    // A tab whose docks need more room than the window has makes Qt widen the window to the right:
    // the window is moved back so that the whole of it stays on the screen.
    void aTabThatWidensTheWindowKeepsItOnTheScreen() {
        QCOMPARE(bps::ui::kept_on_screen(QRect(128, 72, 1250, 600), QRect(0, 0, 1280, 720)), QRect(30, 72, 1250, 600));
        QCOMPARE(bps::ui::kept_on_screen(QRect(100, 50, 900, 600), QRect(0, 0, 1280, 720)), QRect(100, 50, 900, 600));
        QCOMPARE(bps::ui::kept_on_screen(QRect(-20, 300, 900, 600), QRect(0, 30, 1280, 690)), QRect(0, 120, 900, 600));

        auto window = make_window();
        window->start();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTabWidget* tabs = window->panels();
        const auto tab_named = [tabs](const QString& text) {
            for (int index = 0; index < tabs->count(); ++index)
                if (tabs->tabText(index) == text) return index;
            return -1;
        };
        const int start = tab_named("Start");
        const int training = tab_named("Training");
        QVERIFY(start >= 0 && training >= 0);
        tabs->setCurrentIndex(start);  // no Train dock: the window's least width is small
        QCoreApplication::processEvents();
        const QRect available = window->screen()->availableGeometry();
        const int narrow = window->minimumSizeHint().width();
        // At the screen's right edge, as narrow as the Start page lets it be.
        window->setGeometry(available.right() - narrow - 20, available.top() + 40, narrow, 400);
        QCoreApplication::processEvents();
        tabs->setCurrentIndex(training);  // the Train dock comes back beside the curves
        QTRY_VERIFY_WITH_TIMEOUT(window->width() > narrow, 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(window->frameGeometry().right() <= available.right(),
                                  qPrintable(QString("frame %1..%2, screen up to %3")
                                                 .arg(window->frameGeometry().left())
                                                 .arg(window->frameGeometry().right())
                                                 .arg(available.right())),
                                  5000);
        QVERIFY(window->frameGeometry().left() >= available.left());
    }

    void aLaterStartRestoresTheLastProjectAndTheWindowsPlace() {
        const fs::path path = write_mlp("last.json");
        QRect placed;
        {
            auto window = make_window();
            window->start();
            QVERIFY(window->open_project(QString::fromStdString(path.string())));
            window->show();
            QVERIFY(QTest::qWaitForWindowExposed(window.get()));
            window->setGeometry(100, 80, 900, 600);
            placed = window->geometry();
            QVERIFY(window->close());
        }
        auto window = make_window();
        window->start();
        QCOMPARE(QString::fromStdString(window->document()->file().string()), QString::fromStdString(path.string()));
        QCOMPARE(window->geometry().size(), placed.size());

        // A last project that is gone: the cnn template, and no error dialog.
        fs::remove(path);
        auto third = make_window();
        third->start();
        QCOMPARE(third->document()->project().name, std::string("cnn"));
        QVERIFY(errors_.isEmpty());
    }

    void resetLayoutPutsTheDocksBack() {
        auto window = make_window();
        window->start();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->panels()->setCurrentIndex(0);  // a first start shows the Course tab, the editor's docks away
        auto* palette = window->findChild<QDockWidget*>("paletteDock");
        auto* inspector = window->findChild<QDockWidget*>("inspectorDock");
        auto* problems = window->findChild<QDockWidget*>("problemsDock");
        auto* summary = window->findChild<QDockWidget*>("summaryDock");
        QVERIFY(palette && inspector && problems && summary);
        QCOMPARE(window->dockWidgetArea(palette), Qt::LeftDockWidgetArea);
        QCOMPARE(window->dockWidgetArea(inspector), Qt::RightDockWidgetArea);
        QCOMPARE(window->dockWidgetArea(problems), Qt::BottomDockWidgetArea);
        QCOMPARE(window->tabifiedDockWidgets(problems), QList<QDockWidget*>{summary});
        // The View menu shows and hides each dock.
        for (QDockWidget* dock : {palette, inspector, problems, summary})
            QVERIFY(window->view_menu()->actions().contains(dock->toggleViewAction()));

        window->addDockWidget(Qt::BottomDockWidgetArea, inspector);
        window->addDockWidget(Qt::RightDockWidgetArea, palette);
        summary->toggleViewAction()->trigger();  // hides it
        QVERIFY(summary->isHidden());
        window->reset_layout_action()->trigger();
        QCOMPARE(window->dockWidgetArea(palette), Qt::LeftDockWidgetArea);
        QCOMPARE(window->dockWidgetArea(inspector), Qt::RightDockWidgetArea);
        QVERIFY(!summary->isHidden());
        QCOMPARE(window->tabifiedDockWidgets(problems), QList<QDockWidget*>{summary});
    }

    void theMenusCarryTheEditorsShortcuts() {
        auto window = make_window();
        QCOMPARE(window->open_action()->shortcut(), QKeySequence("Ctrl+O"));
        QCOMPARE(window->save_action()->shortcut(), QKeySequence("Ctrl+S"));
        QCOMPARE(window->save_as_action()->shortcut(), QKeySequence("Ctrl+Shift+S"));
        QCOMPARE(window->quit_action()->shortcut(), QKeySequence("Ctrl+Q"));
        QCOMPARE(window->undo_action()->shortcut(), QKeySequence("Ctrl+Z"));
        QVERIFY(window->redo_action()->shortcuts().contains(QKeySequence("Ctrl+Shift+Z")));
        QCOMPARE(window->delete_action()->shortcut(), QKeySequence(Qt::Key_Delete));
        QCOMPARE(window->select_all_action()->shortcut(), QKeySequence("Ctrl+A"));
        QVERIFY(window->zoom_in_action()->shortcuts().contains(QKeySequence("Ctrl++")));
        QVERIFY(window->zoom_in_action()->shortcuts().contains(QKeySequence("Ctrl+=")));
        QCOMPARE(window->zoom_out_action()->shortcut(), QKeySequence("Ctrl+-"));
        QCOMPARE(window->reset_zoom_action()->shortcut(), QKeySequence("Ctrl+0"));
        QCOMPARE(window->fit_action()->shortcut(), QKeySequence("F"));

        // The canvas's keys work in the Network tab only: Del in the Datasets tab deletes no layer.
        window->show();
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        QSignalSpy deletes(window->delete_action(), &QAction::triggered);
        QWidget* canvas = window->panels()->widget(0);
        canvas->setFocusPolicy(Qt::StrongFocus);
        canvas->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(canvas->hasFocus(), 5000);
        QTest::keyClick(canvas, Qt::Key_Delete);
        QCOMPARE(deletes.count(), 1);
        window->panels()->setCurrentWidget(window->dataset_panel());
        auto* table = window->dataset_panel()->table();
        table->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(table->hasFocus(), 5000);
        QTest::keyClick(table, Qt::Key_Delete);
        QCOMPARE(deletes.count(), 1);

        // Undo and Redo are the document's stack.
        const fs::path path = write_mlp("undo.json");
        QVERIFY(window->open_project(QString::fromStdString(path.string())));
        QVERIFY(!window->undo_action()->isEnabled());
        set_fc1_units(*window->document(), 3);
        QVERIFY(window->undo_action()->isEnabled());
        window->undo_action()->trigger();
        QCOMPARE(window->document()->layer("fc1")->units, 256);
        window->redo_action()->trigger();
        QCOMPARE(window->document()->layer("fc1")->units, 3);
    }

    void aRefusedEditShowsItsReasonInTheStatusBar() {
        auto window = make_window();
        window->start();
        const auto reason = window->document()->connect("no-such-layer", "input");
        QVERIFY(reason);
        QCOMPARE(window->statusBar()->currentMessage(), QString::fromStdString(*reason));
    }

    void useForThisProjectSetsTheDatasetAndKeepsTheRestOfItsSettings() {
        auto window = make_window();
        window->start();
        bps::project::DatasetSettings before = window->document()->project().dataset;
        int cifar = -1;
        bps::ui::DatasetPanel* panel = window->dataset_panel();
        for (int row = 0; row < panel->model()->rowCount(); ++row)
            if (panel->model()->entry(row).id == "cifar10") cifar = row;
        QVERIFY(cifar >= 0);
        panel->select_row(cifar);
        QVERIFY(panel->use_for_project_button()->isEnabled());
        panel->use_for_project_button()->click();
        const bps::project::DatasetSettings& after = window->document()->project().dataset;
        QCOMPARE(after.name, std::string("cifar10"));
        QCOMPARE(after.validation_fraction, before.validation_fraction);
        QCOMPARE(after.normalize, before.normalize);
        QVERIFY(window->document()->is_modified());
        window->undo_action()->trigger();
        QCOMPARE(window->document()->project().dataset.name, before.name);
    }

    void theStatusBarNamesTheProjectsDatasetAsItChanges() {
        auto window = make_window();
        auto* label = window->findChild<QLabel*>("datasetStatus");
        QVERIFY(label);
        QVERIFY2(label->text().startsWith("Fashion-MNIST"), qPrintable(label->text()));
        bps::project::DatasetSettings dataset = window->document()->project().dataset;
        dataset.name = "cifar10";
        QVERIFY(!window->document()->set_dataset(dataset));
        // On this computer or not, it is CIFAR-10 now; where it is, it says its shape.
        QVERIFY2(label->text().startsWith("CIFAR-10"), qPrintable(label->text()));
        if (!label->text().contains("not on this computer"))
            QVERIFY2(label->text().contains("(3, 32, 32), 10 classes"), qPrintable(label->text()));
        dataset.name.clear();
        dataset.folder = file("no-such-folder").string();
        QVERIFY(!window->document()->set_dataset(dataset));
        QVERIFY2(label->text().contains("no-such-folder") && label->text().contains("does not exist"),
                 qPrintable(label->text()));
        window->undo_action()->trigger();
        QVERIFY2(label->text().startsWith("CIFAR-10"), qPrintable(label->text()));
    }

    void theStartsOpenedMessageIsNotDrawnOverTheDatasetLabel() {
        const fs::path path = write_mlp("argument.json");
        auto window = make_window();
        window->start(QString::fromStdString(path.string()));  // as `backprop-studio FILE` does
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(window->statusBar()->currentMessage().startsWith("Opened "));
        QVERIFY(window->statusBar()->currentMessage().endsWith("argument.json"));
        auto* label = window->findChild<QLabel*>("datasetStatus");
        QVERIFY(label);
        QVERIFY(!label->isVisible());
    }

    void aDroppedProjectFileOpens() {
        const fs::path path = write_mlp("dropped.json");
        auto window = make_window();
        window->start();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(path.string()))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &drop);
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(window->document()->file().string()),
                                  QString::fromStdString(path.string()), 5000);

        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(files_->filePath("notes.txt"))});
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(window.get(), &refused);
        QVERIFY(!refused.isAccepted());
    }
};

BACKPROP_QT_TEST(ProjectFilesTest)
#include "test_project_files.moc"
