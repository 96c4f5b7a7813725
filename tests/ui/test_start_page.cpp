// The Start tab: what a start without a file shows (instead of the Course tab at a first start),
// its templates with their descriptions and thumbnails, each opening under its own name on the
// Network tab after the unsaved-changes question, Open…, the recent projects (a gone one removed
// with a message), the course entry, and "Show this page at start" kept in QSettings. QSettings
// and every file live in temporary folders; the window's questions are answered in code.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QImage>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <memory>
#include <set>

#include "datasets/catalogue.h"
#include "engine/project/project.h"
#include "tests/ui/qt_test_class.h"
#include "ui/course/course_panel.h"
#include "ui/document/network_document.h"
#include "ui/editor/palette_dock.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/recent_files.h"
#include "ui/start/start_page.h"
#include "ui/start/template_card.h"
#include "ui/start/template_thumbnail.h"

namespace fs = std::filesystem;
using bps::ui::MainWindow;
using bps::ui::StartPage;
using bps::ui::TemplateCard;
using bps::ui::UnsavedChoice;

namespace {

// How many boxes a thumbnail shows along its middle row: runs of fully opaque pixels (the lines
// between the boxes are drawn half transparent).
int boxes_across_the_middle(const QPixmap& thumbnail) {
    const QImage image = thumbnail.toImage().convertToFormat(QImage::Format_ARGB32);
    const int y = image.height() / 2;
    int runs = 0;
    bool inside = false;
    for (int x = 0; x < image.width(); ++x) {
        const bool opaque = qAlpha(image.pixel(x, y)) == 255;
        if (opaque && !inside) ++runs;
        inside = opaque;
    }
    return runs;
}

bool inside_of(const QWidget* widget, const QWidget* outer) {
    const QRect rect(widget->mapTo(outer, QPoint(0, 0)), widget->size());
    return outer->rect().contains(rect);
}

}  // namespace

class StartPageTest : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> settings_dir_;
    std::unique_ptr<QTemporaryDir> files_;
    QStringList errors_;
    QStringList save_suggestions_;
    UnsavedChoice unsaved_answer_ = UnsavedChoice::cancel;
    int unsaved_questions_ = 0;
    QString open_answer_;

    std::unique_ptr<MainWindow> make_window() {
        bps::ui::StartupFacts facts;
        facts.dataset_catalogue = bps::datasets::catalogue();
        facts.data_root = fs::path(files_->path().toStdString()) / "data";
        facts.recovery_folder = fs::path(files_->path().toStdString()) / "recovery";
        auto window = std::make_unique<MainWindow>(std::move(facts));
        bps::ui::WindowPrompts& prompts = window->prompts();
        prompts.error = [this](const QString& message) { errors_.append(message); };
        prompts.unsaved_changes = [this](const QString&) {
            ++unsaved_questions_;
            return unsaved_answer_;
        };
        prompts.open_path = [this] { return open_answer_; };
        prompts.save_path = [this](const QString& suggested) {
            save_suggestions_.append(suggested);
            return QString();
        };
        return window;
    }

    // A window started without a file, as `backprop-studio` starts, and shown.
    std::unique_ptr<MainWindow> started_window() {
        auto window = make_window();
        window->start();
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
        return window;
    }

    QString write_project(const QString& file_name, const std::string& example) {
        const QString path = QDir(files_->path()).filePath(file_name);
        bps::project::save_project(path.toStdString(), bps::project::example_project(example));
        return path;
    }

    static void click(QWidget* widget) {
        QVERIFY(widget);
        QVERIFY(widget->isVisible());
        QTest::mouseClick(widget, Qt::LeftButton, {}, widget->rect().center());
    }

    static void click_row(QListWidget* list, int row) {
        QListWidgetItem* item = list->item(row);
        QVERIFY(item);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
    }

    static QString title_of(const QString& name) { return name + "[*] — Backprop Studio"; }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("Backprop Studio Tests");
        QCoreApplication::setApplicationName("start-page-test");
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
        errors_.clear();
        save_suggestions_.clear();
        unsaved_answer_ = UnsavedChoice::cancel;
        unsaved_questions_ = 0;
        open_answer_.clear();
    }

    // A first start shows the Start tab, not the Course tab; the editor's docks and the Train dock
    // give it the room, and at 1280x720 everything on it is in view without scrolling.
    void aFirstStartShowsTheStartPage() {
        auto window = started_window();
        QVERIFY(window);
        StartPage* page = window->start_page();
        QVERIFY(page);
        QCOMPARE(page->objectName(), QString("startPage"));
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(page));
        QCOMPARE(window->panels()->tabText(window->panels()->indexOf(page)), QString("Start"));
        QCOMPARE(window->panels()->widget(0)->objectName(),
                 QString("editorCanvasSlot"));  // the Network tab stays first
        QVERIFY(!window->palette_dock()->isVisible());
        QVERIFY(!window->train_dock()->isVisible());
        // The cnn template it starts with goes by its name.
        QCOMPARE(window->windowTitle(), title_of("cnn"));

        window->resize(1280, 720);
        QCoreApplication::processEvents();  // the layout the resize asks for
        auto* scroll = page->findChild<QScrollArea*>("startScroll");
        QVERIFY(scroll);
        QVERIFY2(!scroll->verticalScrollBar()->isVisible(), "the Start page needs scrolling at 1280x720");
        for (QWidget* widget :
             {static_cast<QWidget*>(page->course_button()), static_cast<QWidget*>(page->open_button()),
              static_cast<QWidget*>(page->recent_list()), static_cast<QWidget*>(page->show_at_start_box())}) {
            QVERIFY2(widget->isVisible(), qPrintable(widget->objectName()));
            QVERIFY2(inside_of(widget, page), qPrintable(widget->objectName()));
        }
        for (const QString& name : page->template_names())
            QVERIFY2(inside_of(page->template_card(name), page), qPrintable(name));
        // The window's own widgets, found by the names the walkthrough uses.
        for (const char* name : {"startPage", "startOpenButton", "startCourseButton", "startRecentList",
                                 "startShowAtStart", "startTemplate_blank", "startTemplate_cnn"})
            QVERIFY2(window->findChild<QWidget*>(name), name);
        unsaved_answer_ = UnsavedChoice::discard;
    }

    // The first start's window on a 1280x720 screen is 1024 wide: four cards a row would push the
    // project column past the page's edge (it never scrolls sideways), so two stand in a row, and
    // four again once the window is wide enough.
    void theTemplateCardsGoTwoARowWhereFourDoNotFit() {
        auto window = started_window();
        QVERIFY(window);
        StartPage* page = window->start_page();
        window->resize(1024, 576);
        QTRY_COMPARE_WITH_TIMEOUT(page->cards_per_row(), 2, 5000);
        QCoreApplication::processEvents();
        auto* scroll = page->findChild<QScrollArea*>("startScroll");
        QVERIFY(scroll);
        const QRect viewport = scroll->viewport()->rect();
        const auto within_width = [&](QWidget* widget) {
            const QPoint left = widget->mapTo(scroll->viewport(), QPoint(0, 0));
            return left.x() >= viewport.left() && left.x() + widget->width() <= viewport.right() + 1;
        };
        for (const QString& name : page->template_names())
            QVERIFY2(within_width(page->template_card(name)), qPrintable(name));
        for (QWidget* widget : {static_cast<QWidget*>(page->open_button()), static_cast<QWidget*>(page->recent_list()),
                                static_cast<QWidget*>(page->course_button())})
            QVERIFY2(within_width(widget), qPrintable(widget->objectName()));
        QCOMPARE(page->template_card("blank")->y(), page->template_card("mlp")->y());
        QVERIFY(page->template_card("cnn")->y() > page->template_card("blank")->y());

        window->resize(1600, 900);
        QTRY_COMPARE_WITH_TIMEOUT(page->cards_per_row(), 4, 5000);
        QCoreApplication::processEvents();
        for (const QString& name : page->template_names())
            QCOMPARE(page->template_card(name)->y(), page->template_card("blank")->y());
        unsaved_answer_ = UnsavedChoice::discard;
    }

    // Every template of File ▸ New has a card: its name, its description's first sentence (the
    // whole description as the tooltip), and a thumbnail with a box per layer.
    void everyTemplateHasItsDescriptionAndAThumbnail() {
        auto window = make_window();
        StartPage* page = window->start_page();
        std::set<QString> expected{MainWindow::blank_template};
        for (const std::string& name : bps::project::example_names()) expected.insert(QString::fromStdString(name));
        const QStringList names = page->template_names();
        QCOMPARE(std::set<QString>(names.begin(), names.end()), expected);
        QCOMPARE(names.size(), static_cast<qsizetype>(expected.size()));
        QCOMPARE(names.front(), QString(MainWindow::blank_template));  // the smallest first
        // The same entries as File ▸ New.
        QStringList menu;
        for (QAction* action : window->new_menu()->actions())
            if (!action->isSeparator()) menu.append(action->data().toString());
        QCOMPARE(std::set<QString>(menu.begin(), menu.end()), expected);

        for (const QString& name : names) {
            TemplateCard* card = page->template_card(name);
            QVERIFY2(card, qPrintable(name));
            QCOMPARE(card->objectName(), "startTemplate_" + name);
            const bps::project::Project project = name == MainWindow::blank_template
                                                      ? MainWindow::blank_project()
                                                      : bps::project::example_project(name.toStdString());
            QVERIFY(!card->thumbnail().isNull());
            QCOMPARE(boxes_across_the_middle(card->thumbnail()), static_cast<int>(project.network.layers.size()));
            QVERIFY2(!card->description().isEmpty(), qPrintable(name));
            if (name == MainWindow::blank_template) {
                QCOMPARE(card->title(), QString("Blank"));
                continue;
            }
            const QString description = QString::fromStdString(project.description);
            QCOMPARE(card->title(), QString::fromStdString(project.name));
            QCOMPARE(card->toolTip(), description);
            QCOMPARE(card->description(), StartPage::first_sentence(description));
            QVERIFY(description.startsWith(card->description().chopped(1)));  // less the full stop
            QVERIFY(card->description().endsWith('.'));
        }
        QCOMPARE(page->template_card("cnn")->description(),
                 QString("A small convolutional network: two 3x3 convolutions with ReLU and 2x2 max pooling find local "
                         "patterns, then a dense layer of 128 units and 10 outputs classify Fashion-MNIST."));
    }

    // The first sentence ends at the first full stop followed by a space (not at "3.5").
    void theFirstSentenceOfADescription() {
        QCOMPARE(StartPage::first_sentence("One line. Two lines."), QString("One line."));
        QCOMPARE(StartPage::first_sentence("No full stop"), QString("No full stop"));
        QCOMPARE(StartPage::first_sentence("  Spaced\n out.  Next"), QString("Spaced out."));
        QCOMPARE(StartPage::first_sentence("3.5 units, e.g.x. Then"), QString("3.5 units, e.g.x."));
    }

    // A thumbnail keeps a layer built in code (no canvas place) in a chain, and is sharp on a 2x screen.
    void aThumbnailDrawsEveryLayer() {
        bps::model::NetworkSpec network;
        network.layers = {bps::model::input_layer("in"), bps::model::dense("a", 4), bps::model::dense("b", 2)};
        const QPixmap picture = bps::ui::template_thumbnail(network, QSize(120, 30), QPalette(), 2.0);
        QCOMPARE(picture.size(), QSize(240, 60));
        QCOMPARE(picture.deviceIndependentSize(), QSizeF(120, 30));
        QCOMPARE(boxes_across_the_middle(picture), 3);
        QVERIFY(bps::ui::template_thumbnail({}, QSize(120, 30), QPalette()).toImage().pixel(60, 15) == 0);
    }

    // A card opens its template as File ▸ New does, under the template's name until it is saved,
    // on the Network tab; Save As suggests that name.
    void aTemplateOpensUnderItsNameOnTheNetworkTab() {
        auto window = started_window();
        QVERIFY(window);
        click(window->start_page()->template_card("mlp"));
        QCOMPARE(unsaved_questions_, 0);  // nothing to lose
        QCOMPARE(window->panels()->currentIndex(), 0);
        QVERIFY(window->palette_dock()->isVisible());
        QCOMPARE(window->document()->project().name, std::string("mlp"));
        QCOMPARE(window->document()->project().network.layers.size(), std::size_t{5});
        QVERIFY(window->document()->file().empty());
        QVERIFY(!window->document()->is_modified());
        QCOMPARE(window->windowTitle(), title_of("mlp"));
        window->save_as_action()->trigger();
        QCOMPARE(save_suggestions_.size(), 1);
        QCOMPARE(QFileInfo(save_suggestions_.front()).fileName(), QString("mlp.json"));
        // File ▸ New names it the same way; Blank is Untitled.
        window->findChild<QAction*>("new_cifar")->trigger();
        QCOMPARE(window->windowTitle(), title_of("cifar"));
        window->panels()->setCurrentWidget(window->start_page());
        click(window->start_page()->template_card(MainWindow::blank_template));
        QCOMPARE(window->windowTitle(), title_of("Untitled"));
        QCOMPARE(window->document()->project().network.layers.size(), std::size_t{2});
        // A saved template goes by its file's name.
        window->panels()->setCurrentWidget(window->start_page());
        click(window->start_page()->template_card("cnn"));
        const QString saved = QDir(files_->path()).filePath("my-cnn.json");
        QVERIFY(window->save_to(saved));
        QCOMPARE(window->windowTitle(), title_of("my-cnn.json"));
    }

    // With unsaved changes the question comes first: Cancel keeps the project and the Start tab.
    void theUnsavedChangesQuestionComesFirst() {
        auto window = started_window();
        QVERIFY(window);
        bps::model::LayerSpec fc1 = *window->document()->layer("fc1");
        fc1.units = 64;
        QVERIFY(!window->document()->update_layer("fc1", fc1));
        QVERIFY(window->document()->is_modified());

        unsaved_answer_ = UnsavedChoice::cancel;
        click(window->start_page()->template_card("mlp"));
        QCOMPARE(unsaved_questions_, 1);
        QCOMPARE(window->document()->project().name, std::string("cnn"));
        QCOMPARE(window->document()->layer("fc1")->units, 64);
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->start_page()));

        unsaved_answer_ = UnsavedChoice::discard;
        click(window->start_page()->template_card("mlp"));
        QCOMPARE(unsaved_questions_, 2);
        QCOMPARE(window->document()->project().name, std::string("mlp"));
        QCOMPARE(window->panels()->currentIndex(), 0);
    }

    // The recent projects, newest first, each opening its file on the Network tab; one no longer
    // there is greyed, and a click says so and takes it off the list and Open Recent.
    void recentProjectsAreListedAndOpen() {
        const QString older = write_project("older.json", "mlp");
        const QString gone = QDir(files_->path()).filePath("gone.json");
        const QString newer = write_project("newer.json", "cnn");
        {
            QSettings settings;
            bps::ui::RecentFiles recent(settings);
            recent.add(older);
            recent.add(gone);
            recent.add(newer);
        }
        auto window = started_window();
        QVERIFY(window);
        QListWidget* list = window->start_page()->recent_list();
        QCOMPARE(list->count(), 3);
        const QStringList expected{newer, gone, older};
        for (int row = 0; row < 3; ++row) {
            QCOMPARE(list->item(row)->data(StartPage::path_role).toString(), expected[row]);
            QVERIFY(list->item(row)->text().startsWith(QFileInfo(expected[row]).fileName() + '\n'));
        }
        QVERIFY(list->item(1)->toolTip().contains("no longer there"));
        QVERIFY(list->item(1)->foreground() != list->item(0)->foreground());

        click_row(list, 1);
        QCOMPARE(errors_,
                 QStringList{QDir::toNativeSeparators(gone) + " no longer exists; it is removed from Open Recent."});
        QCOMPARE(list->count(), 2);
        QCOMPARE(window->recent_menu()->actions().size(), 2);
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->start_page()));

        click_row(list, 1);
        QCOMPARE(window->document()->file(), fs::path(older.toStdString()));
        QCOMPARE(window->panels()->currentIndex(), 0);
        QCOMPARE(window->windowTitle(), title_of("older.json"));
        // Opened last, it comes first.
        QCOMPARE(list->item(0)->data(StartPage::path_role).toString(), older);
        QCOMPARE(errors_.size(), 1);
    }

    // No recent project yet: the list says so, and its one row opens nothing.
    void anEmptyRecentListSaysSo() {
        auto window = started_window();
        QVERIFY(window);
        QListWidget* list = window->start_page()->recent_list();
        QCOMPARE(list->count(), 1);
        QCOMPARE(list->item(0)->text(), QString("None yet"));
        QCOMPARE(list->item(0)->flags(), Qt::NoItemFlags);
        click_row(list, 0);
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->start_page()));
        QVERIFY(errors_.isEmpty());
    }

    // Open… asks for a file (after the unsaved question) and opens it on the Network tab.
    void openAsksForAFile() {
        auto window = started_window();
        QVERIFY(window);
        click(window->start_page()->open_button());  // cancelled: nothing changes
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->start_page()));
        open_answer_ = write_project("chosen.json", "mlp");
        click(window->start_page()->open_button());
        QCOMPARE(window->document()->file(), fs::path(open_answer_.toStdString()));
        QCOMPARE(window->panels()->currentIndex(), 0);
    }

    // The course entry shows the Course tab.
    void theCourseEntryShowsTheCourseTab() {
        auto window = started_window();
        QVERIFY(window);
        QCOMPARE(window->start_page()->course_button()->text(), QString("Open the course"));
        click(window->start_page()->course_button());
        QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->course_panel()));
    }

    // "Show this page at start" is kept; off, a start opens as it did before the Start page: the
    // Course tab at a first start, the last project on the Network tab after. A file given to
    // start(), or opened before the window shows, opens on the Network tab either way.
    void theShowAtStartSettingIsRespected() {
        const QString project = write_project("mine.json", "mlp");
        {
            auto window = started_window();
            QVERIFY(window);
            QCheckBox* box = window->start_page()->show_at_start_box();
            QVERIFY(box->isChecked());
            click(box);
            QVERIFY(!box->isChecked());
            QCOMPARE(QSettings().value(StartPage::show_at_start_key).toBool(), false);
            unsaved_answer_ = UnsavedChoice::discard;
            QVERIFY(window->close());
        }
        {
            auto window = started_window();  // still a first start: no project was ever opened
            QVERIFY(window);
            QVERIFY(!window->start_page()->show_at_start_box()->isChecked());
            QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->course_panel()));
            QVERIFY(window->open_project(project));
            QVERIFY(window->close());
        }
        {
            auto window = started_window();
            QVERIFY(window);
            QCOMPARE(window->document()->file(), fs::path(project.toStdString()));
            QCOMPARE(window->panels()->currentIndex(), 0);
            window->start_page()->show_at_start_box()->setChecked(true);
            QCOMPARE(QSettings().value(StartPage::show_at_start_key).toBool(), true);
            QVERIFY(window->close());
        }
        {
            auto window = started_window();  // the last project opens behind the Start page
            QVERIFY(window);
            QCOMPARE(window->document()->file(), fs::path(project.toStdString()));
            QCOMPARE(window->panels()->currentWidget(), static_cast<QWidget*>(window->start_page()));
            QCOMPARE(window->windowTitle(), title_of("mine.json"));
            QVERIFY(window->close());
        }
        {
            auto window = make_window();
            window->start(project);  // as `backprop-studio FILE` does
            window->show();
            QVERIFY(QTest::qWaitForWindowExposed(window.get()));
            QCOMPARE(window->panels()->currentIndex(), 0);
            QVERIFY(window->close());
        }
        {
            auto window = make_window();
            window->start();
            QVERIFY(window->open_project(project));  // opened before the window shows (a drop): no Start tab over it
            window->show();
            QVERIFY(QTest::qWaitForWindowExposed(window.get()));
            QCOMPARE(window->panels()->currentIndex(), 0);
            QVERIFY(window->close());
        }
    }
};

BACKPROP_QT_TEST(StartPageTest)
#include "test_start_page.moc"
