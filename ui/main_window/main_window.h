#pragma once
// The main window: the network editor (a canvas in the "Network" tab and docks around it) beside
// the Devices and Datasets tabs, the File/Edit/View menus, and everything a desktop program does
// with files: the title with the file name and `*` while unsaved, asking before unsaved changes
// are thrown away, recent files, a file from the command line or dropped on the window, autosave
// for crashes, and the window's size and dock layout between starts.
//
// The project is a NetworkDocument, the one model every widget edits. The file logic takes paths
// (open_project, save_to); only the menu actions open dialogs, through prompts(), which tests
// replace.
#include <QByteArray>
#include <QList>
#include <QMainWindow>
#include <QSettings>
#include <QStringList>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "datasets/catalogue.h"
#include "engine/device/device_description.h"
#include "engine/project/project.h"
#include "ui/main_window/window_prompts.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace bps::ui {

class ComparisonPanel;
class CoursePanel;
class ExerciseDock;
class DatasetPanel;
class DevicePanel;
class InspectorDock;
class NetworkDocument;
class NetworkScene;
class NetworkView;
class PaletteDock;
class ProblemsDock;
class ProjectRecovery;
class ResultsPanel;
class StartPage;
class SummaryDock;
class TrainingDashboard;
class TrainPanel;
class TryItPanel;
class InsidePanel;

struct StartupFacts {
    std::vector<device::DeviceDescription> devices;
    std::size_t default_device = 0;
    std::string device_problem;  // empty when the devices were found
    std::string dataset_status;  // e.g. "Fashion-MNIST: /usr/share/datasets/fashion-mnist"
    // For Help ▸ About: session::build_info_text, "Backprop Studio 0.1.0 (git ...)" then one
    // "Name: value" line per library and the kernel cache.
    std::string about_text;
    // The Datasets tab's rows, and the folder downloads go to.
    std::vector<datasets::CatalogueEntry> dataset_catalogue;
    std::filesystem::path data_root;
    // Where autosaves go; empty: ProjectRecovery::default_folder() (tests use a temporary folder).
    std::filesystem::path recovery_folder;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // The dock object names that install_editor_widgets creates and the layout code relies on.
    static constexpr const char* palette_dock_name = "paletteDock";
    static constexpr const char* inspector_dock_name = "inspectorDock";
    static constexpr const char* problems_dock_name = "problemsDock";
    static constexpr const char* summary_dock_name = "summaryDock";
    static constexpr const char* train_dock_name = "trainDock";
    static constexpr const char* blank_template = "blank";

    explicit MainWindow(StartupFacts facts, QWidget* parent = nullptr);
    ~MainWindow() override;

    NetworkDocument* document() const { return document_; }
    NetworkScene* scene() const { return scene_; }
    NetworkView* view() const { return view_; }
    PaletteDock* palette_dock() const { return palette_; }
    InspectorDock* inspector_dock() const { return inspector_; }
    ProblemsDock* problems_dock() const { return problems_; }
    SummaryDock* summary_dock() const { return summary_; }
    ProjectRecovery* recovery() const { return recovery_; }
    DevicePanel* device_panel() const { return device_panel_; }
    ComparisonPanel* comparison_panel() const { return comparison_panel_; }
    DatasetPanel* dataset_panel() const { return dataset_panel_; }
    TrainPanel* train_panel() const { return train_panel_; }
    TrainingDashboard* dashboard() const { return dashboard_; }
    // The Results tab and the Try it tab: what a run got wrong, and the network on the learner's images.
    ResultsPanel* results_panel() const { return results_panel_; }
    TryItPanel* try_it_panel() const { return try_it_panel_; }
    InsidePanel* inside_panel() const { return inside_panel_; }
    // The course: its tab (the exercises and their status) and the open exercise's dock, beside
    // the canvas (tabified with the Inspector). app/gui's CourseController fills both.
    CoursePanel* course_panel() const { return course_panel_; }
    ExerciseDock* exercise_dock() const { return exercise_dock_; }
    // The Start tab (the last tab): the course, the templates, Open… and the recent projects. A
    // start without a file shows it, unless the learner turned it off (StartPage::show_at_start_key).
    StartPage* start_page() const { return start_page_; }
    // Shows the Exercise dock in front of the Network tab.
    void show_exercise_dock();
    // Where a course hint or check result points (exercise.h's Hint::point_at): "node:NAME" selects
    // and centres the node; "dock:X" raises that dock and highlights it a moment; "tab:X" shows
    // that tab; "control:X" focuses that setting of the Train panel. False for a place not known.
    bool point_at(const QString& where);
    QDockWidget* train_dock() const { return train_dock_; }
    QTabWidget* panels() const { return panels_; }
    // The questions the window asks; tests replace them.
    WindowPrompts& prompts() { return prompts_; }
    // Asked before the project is replaced or the window closes: false keeps things as they are.
    // The training controller sets it, to stop a run first (with the learner's consent).
    std::function<bool()> run_guard;
    // How many training runs the project has while it was never saved (they live in the studio's
    // data folder until its first save moves them beside it): replacing such a project asks first.
    // The training controller sets it.
    std::function<int()> unsaved_project_runs;
    // File ▸ Recover Unsaved Runs…: the projects never saved whose runs wait in the studio's data
    // folder (not the current one), and opening one of them with its runs (false: not opened).
    // The training controller sets both.
    std::function<std::vector<UnsavedProjectEntry>()> list_unsaved_projects;
    std::function<bool(const std::filesystem::path& folder)> open_unsaved_project;
    // Lists them (prompts().recover_unsaved_runs) and opens the one picked; in main_window_unsaved_runs.cpp.
    bool recover_unsaved_runs();
    // File > Resume Training from Checkpoint…: the training controller starts the run (the window
    // has opened the checkpoint's project first). False: it did not start.
    std::function<bool(const std::filesystem::path& checkpoint)> resume_training;
    // The Training tab, shown when a run starts.
    void show_dashboard();

    // File
    QMenu* new_menu() const { return new_menu_; }  // one action per template: "blank", "mlp", ...
    QAction* open_action() const { return open_; }
    QMenu* recent_menu() const { return recent_menu_; }
    QAction* save_action() const { return save_; }
    QAction* save_as_action() const { return save_as_; }
    QMenu* export_menu() const { return export_menu_; }  // Weights…, the Python scripts, ONNX Model…
    QAction* resume_checkpoint_action() const { return resume_checkpoint_; }
    QAction* recover_unsaved_runs_action() const { return recover_unsaved_runs_; }
    // Opens a checkpoint's project and asks resume_training to go on from it.
    bool resume_from_checkpoint(const QString& path);
    QAction* quit_action() const { return quit_; }
    // Edit: Undo and Redo are the undo stack's; the rest act on the canvas. The canvas
    // actions (Edit's and View's zoom and Fit) are added to the Network tab's page with
    // Qt::WidgetWithChildrenShortcut: their keys work while the focus is inside that page.
    QAction* undo_action() const { return undo_; }
    QAction* redo_action() const { return redo_; }
    QAction* cut_action() const { return cut_; }
    QAction* copy_action() const { return copy_; }
    QAction* paste_action() const { return paste_; }
    QAction* delete_action() const { return delete_; }
    QAction* select_all_action() const { return select_all_; }
    // View: zooming and Fit act on the canvas view; Tidy on the document.
    QMenu* view_menu() const { return view_menu_; }
    QAction* zoom_in_action() const { return zoom_in_; }
    QAction* zoom_out_action() const { return zoom_out_; }
    QAction* reset_zoom_action() const { return reset_zoom_; }
    QAction* fit_action() const { return fit_; }
    QAction* tidy_action() const { return tidy_; }
    QAction* reset_layout_action() const { return reset_layout_; }
    QAction* about_action() const { return about_; }
    // What Help ▸ About shows: StartupFacts::about_text as a heading and a table.
    QString about_html() const;

    // The File ▸ New ▸ Blank project: an input connected to a Dense output of 10 units.
    static project::Project blank_project();

    // What a start does before the window is shown: the geometry and docks of the last session
    // (or 80% of the screen, centred, the first time), then `file` if given, else the last
    // project if its file still exists, else the cnn template on Fashion-MNIST. Without a file the
    // window shows the Start tab, or where the learner turned that off, the Course tab at a first
    // start (no project before).
    void start(const QString& file = {});
    // Offers the recovery files that a crashed session left behind, newest first, until one is
    // restored; a declined one is deleted. True when a project was restored.
    bool offer_recovery();

    // The file logic. Each asks about unsaved changes first where it would throw them away, and
    // reports failures through prompts().error; each returns whether it happened.
    bool new_project(const QString& template_name);  // blank_template or a project::example_names()
    // A new unsaved project from `project` (an exercise's starter or solution), named `title` in
    // the window's title until it is saved; asks about unsaved changes first, as New does.
    bool new_project_from(project::Project project, const QString& title);
    bool open_project(const QString& path);
    bool save();  // to the document's file, or Save As for a new project
    bool save_as();
    bool save_to(const QString& path);
    // True when the current project may be replaced: nothing unsaved, saved, or discarded.
    bool may_discard_changes();
    // The docks back where install_editor_widgets puts them.
    void reset_layout();

signals:
    // The project was saved to `path` (Save, Save As): a new project's runs move beside it.
    void saved(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // The canvas and the docks around it, and how they lead to each other. Called once, before the
    // menus are built and before the default layout is taken.
    void install_editor_widgets();
    // The Train dock beside the editor and the Training tab; the network locked while a run trains.
    // In main_window_training.cpp.
    void install_training_widgets(std::vector<device::DeviceDescription> devices, std::size_t default_device);
    void show_lock(bool locked);
    // The editor's docks (palette, inspector, problems, summary) belong with the Network tab: the
    // other tabs get their room. The Train dock stays everywhere.
    void follow_tab(int index);
    void keep_within_screen();
    void connect_canvas_actions();
    void update_dataset_status();  // Edit's and View's canvas actions to the scene and the view

    void create_menus();
    void add_dock_toggles();
    void size_docks();
    void rebuild_recent_menu();
    void update_title();
    void install_course_widgets();
    void install_start_page();  // in main_window_start.cpp
    // Open Recent's entry: opens the file, or says it is gone and drops it from the list.
    bool open_recent(const QString& path);
    void highlight(QWidget* widget);
    bool load_file(const QString& path);
    void remember_project_file(const QString& path);
    void use_catalogue_dataset(int row);
    QString display_name() const;

    QSettings settings_;
    NetworkDocument* document_;
    QTabWidget* panels_;
    DevicePanel* device_panel_;
    ComparisonPanel* comparison_panel_;
    DatasetPanel* dataset_panel_;
    ProjectRecovery* recovery_;
    QLabel* dataset_status_ = nullptr;
    QString dataset_status_source_;  // the dataset name or folder dataset_status_ describes
    NetworkScene* scene_ = nullptr;
    NetworkView* view_ = nullptr;
    PaletteDock* palette_ = nullptr;
    InspectorDock* inspector_ = nullptr;
    ProblemsDock* problems_ = nullptr;
    SummaryDock* summary_ = nullptr;
    TrainPanel* train_panel_ = nullptr;
    TrainingDashboard* dashboard_ = nullptr;
    ResultsPanel* results_panel_ = nullptr;
    TryItPanel* try_it_panel_ = nullptr;
    InsidePanel* inside_panel_ = nullptr;
    CoursePanel* course_panel_ = nullptr;
    ExerciseDock* exercise_dock_ = nullptr;
    bool exercise_dock_added_ = false;  // the Exercise dock joins the window when an exercise opens
    bool offer_course_ = false;         // a first start: the Course tab when the window shows
    StartPage* start_page_ = nullptr;
    bool offer_start_page_ = false;  // a start without a file: the Start tab when the window shows
    QString untitled_name_;          // an unsaved project's name in the title (an exercise's), else "Untitled"
    QDockWidget* train_dock_ = nullptr;
    QLabel* lock_banner_ = nullptr;   // over the canvas while a run trains
    QList<QDockWidget*> docks_away_;  // editor docks hidden while another tab shows
    bool train_dock_away_ = false;    // the Train dock hidden while Results or Try It shows
    WindowPrompts prompts_;
    QByteArray default_layout_;  // saveState() right after install_editor_widgets

    QMenu* new_menu_ = nullptr;
    QAction* open_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QAction* save_ = nullptr;
    QMenu* export_menu_ = nullptr;
    QAction* resume_checkpoint_ = nullptr;
    QAction* recover_unsaved_runs_ = nullptr;
    QAction* save_as_ = nullptr;
    QAction* quit_ = nullptr;
    QAction* undo_ = nullptr;
    QAction* redo_ = nullptr;
    QAction* cut_ = nullptr;
    QAction* copy_ = nullptr;
    QAction* paste_ = nullptr;
    QAction* delete_ = nullptr;
    QAction* select_all_ = nullptr;
    QMenu* view_menu_ = nullptr;
    QAction* zoom_in_ = nullptr;
    QAction* zoom_out_ = nullptr;
    QAction* reset_zoom_ = nullptr;
    QAction* fit_ = nullptr;
    QAction* tidy_ = nullptr;
    QAction* reset_layout_ = nullptr;
    QAction* about_ = nullptr;
    QString about_text_;
    QAction* dock_toggles_end_ = nullptr;  // the separator before Reset layout
};

}  // namespace bps::ui
