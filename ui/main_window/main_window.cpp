#include "ui/main_window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QShowEvent>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "engine/runs/saved_weights.h"
#include "ui/course/course_panel.h"
#include "ui/course/exercise_dock.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/devices/comparison_panel.h"
#include "ui/devices/device_panel.h"
#include "ui/dialog_folder.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/network_view.h"
#include "ui/editor/palette_dock.h"
#include "ui/editor/problems_dock.h"
#include "ui/editor/summary_dock.h"
#include "ui/main_window/project_file_io.h"
#include "ui/main_window/project_recovery.h"
#include "ui/main_window/recent_files.h"
#include "ui/main_window/window_layout.h"
#include "ui/start/start_page.h"

namespace bps::ui {

namespace {

const char* const last_project_key = "lastProject";
constexpr int status_message_ms = 5000;

QString folder_or_default(const std::filesystem::path& folder) {
    return folder.empty() ? ProjectRecovery::default_folder() : to_qstring(folder);
}

// A project file in a drag: one local .json file, or a weights file or checkpoint (.h5).
QString dropped_project(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return {};
    const QUrl url = mime->urls().front();
    if (!url.isLocalFile() || !(url.toLocalFile().endsWith(".json", Qt::CaseInsensitive) ||
                                url.toLocalFile().endsWith(".h5", Qt::CaseInsensitive)))
        return {};
    return url.toLocalFile();
}

}  // namespace

MainWindow::MainWindow(StartupFacts facts, QWidget* parent)
    : QMainWindow(parent),
      document_(new NetworkDocument(this)),
      panels_(new QTabWidget(this)),
      device_panel_(new DevicePanel(facts.devices, facts.default_device, facts.device_problem, panels_)),
      comparison_panel_(new ComparisonPanel(facts.devices, panels_)),
      dataset_panel_(new DatasetPanel(std::move(facts.dataset_catalogue), std::move(facts.data_root), panels_)),
      recovery_(new ProjectRecovery(document_, folder_or_default(facts.recovery_folder), this)),
      prompts_(dialog_prompts(this)),
      about_text_(QString::fromStdString(facts.about_text)) {
    setObjectName("mainWindow");
    setAcceptDrops(true);
    panels_->setObjectName("panels");
    panels_->addTab(device_panel_, tr("Devices"));
    panels_->addTab(comparison_panel_, tr("Compare Devices"));
    panels_->addTab(dataset_panel_, tr("Datasets"));
    setCentralWidget(panels_);
    dataset_status_ = new QLabel(QString::fromStdString(facts.dataset_status), this);
    dataset_status_->setObjectName("datasetStatus");
    statusBar()->addWidget(dataset_status_, 1);

    install_editor_widgets();
    install_training_widgets(std::move(facts.devices), facts.default_device);
    install_course_widgets();
    install_start_page();
    panels_->setCurrentIndex(0);
    create_menus();
    connect_canvas_actions();
    add_dock_toggles();
    fit_small_screens(*this, *panels_);
    default_layout_ = saveState(window_state_version);
    resize(1100, 700);  // until start() places the window for this screen

    connect(document_, &NetworkDocument::fileStateChanged, this, &MainWindow::update_title);
    connect(document_, &NetworkDocument::changed, this, &MainWindow::update_dataset_status);
    update_dataset_status();
    connect(document_, &NetworkDocument::refused, this,
            [this](const QString& reason) { statusBar()->showMessage(reason, status_message_ms); });
    connect(recovery_, &ProjectRecovery::autosaveFailed, this,
            [this](const QString& message) { statusBar()->showMessage(message, status_message_ms); });
    connect(dataset_panel_, &DatasetPanel::useForProjectRequested, this, &MainWindow::use_catalogue_dataset);
    update_title();
}

MainWindow::~MainWindow() {
    // The document goes first (it is the first child), and its undo stack says "clean" as it is
    // cleared: nobody may take that for a save (the recovery file would go) or read the dying
    // document.
    QObject::disconnect(document_, nullptr, nullptr, nullptr);
}

// ---- EDITOR WIDGETS -------------------------------------------------------------------------
// The canvas in the "Network" tab, the palette and the inspector at the sides, the problems and
// the summary under it. Each shows the document; the wiring between them is here.
void MainWindow::install_editor_widgets() {
    auto* canvas_page = new QWidget(panels_);
    canvas_page->setObjectName("editorCanvasSlot");
    auto* page_layout = new QVBoxLayout(canvas_page);
    page_layout->setContentsMargins(0, 0, 0, 0);
    scene_ = new NetworkScene(document_, this);
    view_ = new NetworkView(scene_, canvas_page);
    page_layout->addWidget(view_);
    panels_->insertTab(0, canvas_page, tr("Network"));

    palette_ = new PaletteDock(this);
    inspector_ = new InspectorDock(document_, this);
    problems_ = new ProblemsDock(document_, this);
    summary_ = new SummaryDock(document_, this);
    // The palette and the inspector run the window's full height, as in most editors; the
    // problems and the summary sit under the canvas.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    addDockWidget(Qt::LeftDockWidgetArea, palette_);
    addDockWidget(Qt::RightDockWidgetArea, inspector_);
    addDockWidget(Qt::BottomDockWidgetArea, problems_);
    addDockWidget(Qt::BottomDockWidgetArea, summary_);
    tabifyDockWidget(problems_, summary_);
    problems_->raise();

    // Another project opens showing all of it (after the scene has its nodes, hence queued).
    connect(document_, &NetworkDocument::replaced, view_, &NetworkView::show_network, Qt::QueuedConnection);
    // The inspector edits the one selected layer.
    connect(scene_, &NetworkScene::selectionNamesChanged, inspector_, [this](const QStringList& names) {
        inspector_->show_layer(names.size() == 1 ? names.front() : QString());
    });
    // A problem or a summary row takes the learner to its layer.
    const auto go_to_layer = [this](const QString& name) {
        panels_->setCurrentIndex(0);
        scene_->select_layers({name});
        view_->show_layer(name);
    };
    connect(problems_, &ProblemsDock::layerActivated, this, go_to_layer);
    connect(summary_, &SummaryDock::layerActivated, this, go_to_layer);
    // The palette's double-click: the new layer after the selected one, connected, and selected.
    connect(palette_, &PaletteDock::appendRequested, this, [this, go_to_layer](const QString& label) {
        const QStringList selected = scene_->selected_layers();
        std::string added;
        if (!document_->append_layer(label.toStdString(),
                                     selected.isEmpty() ? std::string() : selected.front().toStdString(), &added))
            go_to_layer(QString::fromStdString(added));
    });
}

// The status bar says which images the project trains on and whether they are here; it looks
// at the disk only when the dataset changes.
void MainWindow::update_dataset_status() {
    const project::DatasetSettings& dataset = document_->project().dataset;
    const QString source = QString::fromStdString(dataset.folder.empty() ? dataset.name : dataset.folder);
    if (source == dataset_status_source_ && !dataset_status_->text().isEmpty()) return;
    dataset_status_source_ = source;
    const datasets::ImageShape& image = document_->input_shape();
    const QString shape = QString("(%1, %2, %3)").arg(image.channels).arg(image.height).arg(image.width);
    const QString classes = document_->classes() ? tr(", %1 classes").arg(*document_->classes()) : QString();
    if (!document_->dataset_problem().empty()) {
        dataset_status_->setText(QString::fromStdString(document_->dataset_problem()));
    } else if (!dataset.folder.empty()) {
        dataset_status_->setText(tr("Images from %1: %2%3").arg(source, shape, classes));
    } else {
        const datasets::CatalogueEntry& entry = datasets::catalogue_entry(dataset.name);
        const datasets::LocalState state = datasets::local_state(entry, dataset_panel_->model()->user_root());
        const QString title = QString::fromStdString(entry.title);
        if (state.availability == datasets::Availability::missing)
            dataset_status_->setText(tr("%1 is not on this computer: download it on the Datasets tab").arg(title));
        else
            dataset_status_->setText(
                tr("%1 %2%3: %4").arg(title, shape, classes, QString::fromStdString(state.folder.string())));
    }
}

void MainWindow::connect_canvas_actions() {
    connect(cut_, &QAction::triggered, scene_, &NetworkScene::cut_selection);
    connect(copy_, &QAction::triggered, scene_, &NetworkScene::copy_selection);
    connect(paste_, &QAction::triggered, scene_, &NetworkScene::paste);
    connect(delete_, &QAction::triggered, scene_, &NetworkScene::delete_selection);
    connect(select_all_, &QAction::triggered, scene_, &NetworkScene::select_all);
    connect(zoom_in_, &QAction::triggered, view_, &NetworkView::zoom_in);
    connect(zoom_out_, &QAction::triggered, view_, &NetworkView::zoom_out);
    connect(reset_zoom_, &QAction::triggered, view_, &NetworkView::reset_zoom);
    connect(fit_, &QAction::triggered, view_, &NetworkView::fit_all);
}
// ---- end of EDITOR WIDGETS ------------------------------------------------------------------

void MainWindow::create_menus() {
    // File
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName("fileMenu");
    new_menu_ = file->addMenu(tr("&New"));
    new_menu_->setObjectName("newMenu");
    const auto add_template = [this](const QString& name, const QString& text) {
        QAction* action = new_menu_->addAction(text);
        action->setObjectName("new_" + name);
        action->setData(name);
        connect(action, &QAction::triggered, this, [this, name] { new_project(name); });
    };
    add_template(blank_template, tr("&Blank (an input and an output)"));
    new_menu_->addSeparator();
    for (const std::string& name : project::example_names())
        add_template(QString::fromStdString(name), tr("Template: %1").arg(QString::fromStdString(name)));

    open_ = file->addAction(tr("&Open…"), this, [this] {
        if (!may_discard_changes()) return;
        const QString path = prompts_.open_path();
        if (!path.isEmpty()) load_file(path);
    });
    open_->setObjectName("openAction");
    open_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    recent_menu_->setObjectName("recentMenu");
    file->addSeparator();
    save_ = file->addAction(tr("&Save"), this, [this] { save(); });
    save_->setObjectName("saveAction");
    save_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    save_as_ = file->addAction(tr("Save &As…"), this, [this] { save_as(); });
    save_as_->setObjectName("saveAsAction");
    save_as_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    // The trained network in the formats other tools read: the run list's selected run, else the
    // newest run with weights.
    export_menu_ = file->addMenu(tr("&Export"));
    export_menu_->setObjectName("exportMenu");
    const auto add_export = [this](const QString& text, const char* name, auto action) {
        QAction* item = export_menu_->addAction(text);
        item->setObjectName(name);
        connect(item, &QAction::triggered, this, [this, action] {
            if (const QString id = dashboard_->run_list()->run_to_export(); !id.isEmpty()) action(id);
        });
    };
    add_export(tr("&Weights (Keras HDF5)…"), "exportWeightsAction",
               [this](const QString& id) { dashboard_->run_list()->export_weights_asking(id); });
    add_export(tr("&PyTorch Script…"), "exportPyTorchScriptAction", [this](const QString& id) {
        dashboard_->run_list()->export_script_asking(id, RunList::ScriptKind::pytorch);
    });
    add_export(tr("&Keras Script…"), "exportKerasScriptAction", [this](const QString& id) {
        dashboard_->run_list()->export_script_asking(id, RunList::ScriptKind::keras);
    });
    add_export(tr("PyTorch &Training Script…"), "exportPyTorchTrainingScriptAction", [this](const QString& id) {
        dashboard_->run_list()->export_script_asking(id, RunList::ScriptKind::pytorch_training);
    });
    add_export(tr("Keras Tr&aining Script…"), "exportKerasTrainingScriptAction", [this](const QString& id) {
        dashboard_->run_list()->export_script_asking(id, RunList::ScriptKind::keras_training);
    });
    add_export(tr("&ONNX Model…"), "exportOnnxModelAction",
               [this](const QString& id) { dashboard_->run_list()->export_onnx_asking(id); });
    connect(export_menu_, &QMenu::aboutToShow, this, [this] {
        const bool any = !dashboard_->run_list()->run_to_export().isEmpty();
        for (QAction* action : export_menu_->actions()) action->setEnabled(any);
    });
    resume_checkpoint_ = file->addAction(tr("&Resume Training from Checkpoint…"), this, [this] {
        if (!may_discard_changes()) return;
        const QString path = prompts_.checkpoint_path();
        if (!path.isEmpty()) resume_from_checkpoint(path);
    });
    resume_checkpoint_->setObjectName("resumeCheckpointAction");
    recover_unsaved_runs_ = file->addAction(tr("Recover &Unsaved Runs…"), this, [this] { recover_unsaved_runs(); });
    recover_unsaved_runs_->setObjectName("recoverUnsavedRunsAction");
    file->addSeparator();
    quit_ = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit_->setObjectName("quitAction");
    quit_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit_->setMenuRole(QAction::QuitRole);
    rebuild_recent_menu();

    // Edit
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName("editMenu");
    undo_ = document_->undo_stack()->createUndoAction(this, tr("&Undo"));
    undo_->setObjectName("undoAction");
    undo_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    redo_ = document_->undo_stack()->createRedoAction(this, tr("&Redo"));
    redo_->setObjectName("redoAction");
    // Ctrl+Shift+Z everywhere, plus the platform's own (Ctrl+Y on Windows).
    QList<QKeySequence> redo_keys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)};
    for (const QKeySequence& key : QKeySequence::keyBindings(QKeySequence::Redo))
        if (!redo_keys.contains(key)) redo_keys.append(key);
    redo_->setShortcuts(redo_keys);
    edit->addAction(undo_);
    edit->addAction(redo_);
    edit->addSeparator();
    const auto add_edit = [this, edit](const QString& text, const char* name, QKeySequence key) {
        QAction* action = edit->addAction(text);
        action->setObjectName(name);
        action->setShortcut(key);
        return action;
    };
    cut_ = add_edit(tr("Cu&t"), "cutAction", QKeySequence(Qt::CTRL | Qt::Key_X));
    copy_ = add_edit(tr("&Copy"), "copyAction", QKeySequence(Qt::CTRL | Qt::Key_C));
    paste_ = add_edit(tr("&Paste"), "pasteAction", QKeySequence(Qt::CTRL | Qt::Key_V));
    delete_ = add_edit(tr("&Delete"), "deleteAction", QKeySequence(Qt::Key_Delete));
    edit->addSeparator();
    select_all_ = add_edit(tr("Select &All"), "selectAllAction", QKeySequence(Qt::CTRL | Qt::Key_A));

    // View
    view_menu_ = menuBar()->addMenu(tr("&View"));
    view_menu_->setObjectName("viewMenu");
    zoom_in_ = view_menu_->addAction(tr("Zoom &In"));
    zoom_in_->setObjectName("zoomInAction");
    zoom_in_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    zoom_out_ = view_menu_->addAction(tr("Zoom &Out"));
    zoom_out_->setObjectName("zoomOutAction");
    zoom_out_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    reset_zoom_ = view_menu_->addAction(tr("&Reset Zoom"));
    reset_zoom_->setObjectName("resetZoomAction");
    reset_zoom_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fit_ = view_menu_->addAction(tr("&Fit"));
    fit_->setObjectName("fitAction");
    fit_->setShortcut(QKeySequence(Qt::Key_F));
    // Del, Ctrl+A, F and the rest act on the canvas, so their keys work only while the focus is in
    // the Network tab: Del in the Datasets tab must not delete layers nobody sees. The menu
    // entries work from anywhere.
    QWidget* editor_page = panels_->widget(0);
    for (QAction* action : {cut_, copy_, paste_, delete_, select_all_, zoom_in_, zoom_out_, reset_zoom_, fit_}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        editor_page->addAction(action);
    }
    view_menu_->addSeparator();
    tidy_ = view_menu_->addAction(tr("&Tidy"), this, [this] { document_->tidy(); });
    tidy_->setObjectName("tidyAction");
    dock_toggles_end_ = view_menu_->addSeparator();
    reset_layout_ = view_menu_->addAction(tr("Reset &Layout"), this, &MainWindow::reset_layout);
    reset_layout_->setObjectName("resetLayoutAction");

    // Help
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName("helpMenu");
    about_ = help->addAction(tr("&About Backprop Studio"), this, [this] { prompts_.about(about_html()); });
    about_->setObjectName("aboutAction");
    about_->setMenuRole(QAction::AboutRole);
    QAction* about_qt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    about_qt->setMenuRole(QAction::AboutQtRole);
}

QString MainWindow::about_html() const {
    QStringList lines = about_text_.split('\n', Qt::SkipEmptyParts);
    QString html = "<h3>" + (lines.isEmpty() ? tr("Backprop Studio") : lines.takeFirst().toHtmlEscaped()) + "</h3>";
    html += "<p>" + tr("Learn deep learning by doing it.") + "</p><table>";
    for (const QString& line : lines) {
        const qsizetype colon = line.indexOf(": ");
        if (colon < 0) continue;
        html += "<tr><td><b>" + line.left(colon).toHtmlEscaped() + "</b>&nbsp;&nbsp;</td><td>" +
                line.mid(colon + 2).toHtmlEscaped() + "</td></tr>";
    }
    return html + "</table>";
}

// Room for the docks' contents: the docks alone would shrink to their smallest and leave the rest to
// the canvas. Found by name, like everything here that touches the docks.
void MainWindow::size_docks() {
    const auto dock = [this](const char* name) { return findChild<QDockWidget*>(name, Qt::FindDirectChildrenOnly); };
    QDockWidget* palette = dock(palette_dock_name);
    QDockWidget* inspector = dock(inspector_dock_name);
    QDockWidget* problems = dock(problems_dock_name);
    if (palette && inspector)
        resizeDocks({palette, inspector}, {width() / 6, std::max(width() / 4, 360)}, Qt::Horizontal);
    if (problems) resizeDocks({problems}, {height() / 5}, Qt::Vertical);
    // The Train dock under the inspector: its buttons and most of its settings in view.
    if (inspector && train_dock_)
        resizeDocks({inspector, train_dock_}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
}

// The docks' own show/hide actions, found by name so that the real docks count as well.
void MainWindow::add_dock_toggles() {
    for (const char* name :
         {palette_dock_name, inspector_dock_name, train_dock_name, problems_dock_name, summary_dock_name})
        if (auto* dock = findChild<QDockWidget*>(name, Qt::FindDirectChildrenOnly)) {
            QAction* toggle = dock->toggleViewAction();
            toggle->setObjectName(QString(name) + "Toggle");
            view_menu_->insertAction(reset_layout_, toggle);
        }
    view_menu_->insertSeparator(reset_layout_);
}

void MainWindow::rebuild_recent_menu() {
    recent_menu_->clear();
    const QStringList files = RecentFiles(settings_).files();
    for (int index = 0; index < files.size(); ++index) {
        const QString path = files[index];
        QAction* action = recent_menu_->addAction(QString("&%1 %2").arg(index + 1).arg(QFileInfo(path).fileName()),
                                                  this, [this, path] { open_recent(path); });
        action->setObjectName(QString("recentFile%1").arg(index));
        action->setData(path);
        action->setToolTip(QDir::toNativeSeparators(path));
    }
    recent_menu_->setEnabled(!files.isEmpty());
    if (start_page_) start_page_->set_recent(files);
}

bool MainWindow::open_recent(const QString& path) {
    if (!QFileInfo::exists(path)) {
        RecentFiles(settings_).remove(path);
        rebuild_recent_menu();
        prompts_.error(tr("%1 no longer exists; it is removed from Open Recent.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    return open_project(path);
}

project::Project MainWindow::blank_project() {
    project::Project blank;
    blank.name = "Untitled";
    model::LayerSpec input = model::input_layer("input");
    input.position = model::CanvasPosition{40, 200};
    model::LayerSpec output = model::from(model::dense("output", 10, train::Initializer::glorot_uniform), {"input"});
    output.position = model::CanvasPosition{200, 200};
    blank.network.layers = {input, output};
    return blank;
}

void MainWindow::start(const QString& file) {
    if (!restore_window_layout(*this, settings_)) {
        const QScreen* screen = QGuiApplication::primaryScreen();
        if (screen) setGeometry(first_start_geometry(screen->availableGeometry(), minimumSizeHint()));
        size_docks();
    }
    if (!file.isEmpty() && load_file(file)) return;
    const QString last = settings_.value(last_project_key).toString();
    if (!last.isEmpty() && QFileInfo::exists(last) && load_file(last)) {
        offer_start_page_ = true;  // the learner chooses where to begin, the last project among the rest
        return;
    }
    if (!last.isEmpty() && !QFileInfo::exists(last))
        statusBar()->showMessage(tr("The last project, %1, is gone.").arg(QDir::toNativeSeparators(last)),
                                 status_message_ms);
    document_->reset(project::example_project("cnn"));                   // ready to train on Fashion-MNIST
    untitled_name_ = QString::fromStdString(document_->project().name);  // a template goes by its name
    update_title();
    offer_start_page_ = true;
    // A first start offers the course, its first exercise selected: once the window shows, so that
    // the editor's docks go away with the Network tab as for any other tab.
    offer_course_ = last.isEmpty();
}

bool MainWindow::offer_recovery() {
    for (ProjectRecovery::LeftBehind& left : recovery_->left_behind()) {
        const QString name =
            left.original_file.empty() ? tr("Untitled") : QFileInfo(to_qstring(left.original_file)).fileName();
        const QString question = tr("Restore unsaved changes to %1 from %2?")
                                     .arg(name, QLocale().toString(left.saved_at, QLocale::ShortFormat));
        if (!prompts_.restore_recovery(question)) {
            ProjectRecovery::remove(left.recovery_file);
            continue;
        }
        document_->reset(std::move(left.project), left.original_file, /*modified=*/true);
        offer_course_ = false;
        panels_->setCurrentIndex(0);  // the work restored, not the course a first start offers
        // Our own recovery file takes over before the old one goes, so a second crash loses nothing.
        if (recovery_->autosave()) return true;  // could not write ours: keep the old one
        ProjectRecovery::remove(left.recovery_file);
        return true;
    }
    return false;
}

bool MainWindow::may_discard_changes() {
    if (run_guard && !run_guard()) return false;
    // A template or a weights file opened, trained and never saved: its runs go with it.
    const int runs = document_->file().empty() && unsaved_project_runs ? unsaved_project_runs() : 0;
    if (!document_->is_modified() && runs == 0) return true;
    const UnsavedChoice choice =
        runs > 0 ? prompts_.unsaved_runs(tr("%1 was never saved, and its %n training run(s) are kept only with it. "
                                            "Save the project to keep them?",
                                            nullptr, runs)
                                             .arg(display_name()))
                 : prompts_.unsaved_changes(display_name());
    switch (choice) {
        case UnsavedChoice::save:
            return save();
        case UnsavedChoice::discard:
            return true;
        case UnsavedChoice::cancel:
            return false;
    }
    return false;
}

bool MainWindow::new_project(const QString& template_name) {
    if (!may_discard_changes()) return false;
    try {
        document_->reset(template_name == blank_template ? blank_project()
                                                         : project::example_project(template_name.toStdString()));
    } catch (const std::exception& error) {
        prompts_.error(QString::fromStdString(error.what()));
        return false;
    }
    recovery_->discard();
    // A template goes by its name until it is saved ("cnn", and Save As suggests cnn.json); Blank is Untitled.
    if (template_name != blank_template) untitled_name_ = QString::fromStdString(document_->project().name);
    update_title();
    return true;
}

bool MainWindow::resume_from_checkpoint(const QString& path) {
    if (!load_file(path)) return false;
    return resume_training && resume_training(to_path(QFileInfo(path).absoluteFilePath()));
}

bool MainWindow::open_project(const QString& path) {
    return may_discard_changes() && load_file(path);
}

bool MainWindow::load_file(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // A weights file or checkpoint (HDF5) holds the project it was trained from: it opens as that
    // project, not yet saved as a project file of its own.
    const bool weights_file = absolute.endsWith(".h5", Qt::CaseInsensitive);
    project::Project project;
    try {
        project = weights_file ? session::project_of(session::read_saved_weights(to_path(absolute)))
                               : project::read_project(to_path(absolute));
    } catch (const std::exception& error) {  // ProjectError and WeightsFileError say "FILE: problem"
        prompts_.error(tr("The project was not opened.\n\n%1").arg(QString::fromStdString(error.what())));
        return false;
    }
    if (weights_file) {
        document_->reset(std::move(project), {}, true);
        recovery_->discard();
        remember_project_file(absolute);
        statusBar()->showMessage(tr("Opened the project stored in %1; Save As keeps it as a project file")
                                     .arg(QDir::toNativeSeparators(absolute)),
                                 status_message_ms);
        return true;
    }
    document_->reset(std::move(project), to_path(absolute));
    recovery_->discard();
    remember_project_file(absolute);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(absolute)), status_message_ms);
    return true;
}

bool MainWindow::save() {
    if (document_->file().empty()) return save_as();
    return save_to(to_qstring(document_->file()));
}

bool MainWindow::save_as() {
    QString suggested = to_qstring(document_->file());
    if (suggested.isEmpty()) {
        const std::string& name = document_->project().name;
        suggested = in_dialog_folder(this, (name.empty() ? tr("Untitled") : QString::fromStdString(name)) + ".json");
    }
    const QString path = prompts_.save_path(suggested);
    return !path.isEmpty() && save_to(path);
}

bool MainWindow::save_to(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (const QString failure = save_project_file(*document_, to_path(absolute)); !failure.isEmpty()) {
        prompts_.error(failure);
        return false;  // the document stays modified: nothing was saved
    }
    recovery_->discard();
    remember_project_file(absolute);
    emit saved(absolute);
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(absolute)), status_message_ms);
    return true;
}

void MainWindow::remember_project_file(const QString& path) {
    RecentFiles(settings_).add(path);
    settings_.setValue(last_project_key, path);
    rebuild_recent_menu();
}

void MainWindow::reset_layout() {
    restoreState(default_layout_, window_state_version);
    size_docks();
}

void MainWindow::use_catalogue_dataset(int row) {
    const datasets::CatalogueEntry& entry = dataset_panel_->model()->entry(row);
    project::DatasetSettings dataset = document_->project().dataset;  // feeding and augmentation stay
    dataset.name = entry.id;
    dataset.folder.clear();
    if (!document_->set_dataset(dataset))
        statusBar()->showMessage(tr("The project now trains on %1.").arg(QString::fromStdString(entry.title)),
                                 status_message_ms);
}

QString MainWindow::display_name() const {
    if (document_->file().empty()) return untitled_name_.isEmpty() ? tr("Untitled") : untitled_name_;
    return QFileInfo(to_qstring(document_->file())).fileName();
}

void MainWindow::update_title() {
    setWindowTitle(tr("%1[*] — Backprop Studio").arg(display_name()));
    setWindowModified(document_->is_modified());
    // Save and Export dialogs open beside the project (a new one: in Documents, ui/dialog_folder.h).
    setProperty(dialog_folder_property,
                document_->file().empty() ? QString() : to_qstring(document_->file().parent_path()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!may_discard_changes()) {
        event->ignore();
        return;
    }
    follow_tab(0);  // the layout is saved with the editor's docks where the learner put them
    save_window_layout(*this, settings_);
    if (document_->file().empty())
        settings_.remove(last_project_key);
    else
        settings_.setValue(last_project_key, to_qstring(document_->file()));
    recovery_->discard();  // a clean close: nothing to offer at the next start
    settings_.sync();      // on disk now: main() may end the process without destructors (a busy worker)
    event->accept();
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (std::exchange(offer_start_page_, false) && settings_.value(StartPage::show_at_start_key, true).toBool()) {
        offer_course_ = false;  // the course is the Start page's first offer
        panels_->setCurrentWidget(start_page_);
    }
    if (offer_course_) {
        offer_course_ = false;
        panels_->setCurrentWidget(course_panel_);
    }
    // A message shown before the window was (start()'s "Opened FILE") could not hide the status
    // bar's label, which was not visible yet, and both would be drawn over each other: again now.
    const QString message = statusBar()->currentMessage();
    if (message.isEmpty()) return;
    statusBar()->clearMessage();
    statusBar()->showMessage(message, status_message_ms);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!dropped_project(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = dropped_project(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    // After the drop returns: the questions and messages must not run inside the drag's loop.
    QMetaObject::invokeMethod(
        this, [this, path] { open_project(path); }, Qt::QueuedConnection);
}

}  // namespace bps::ui
