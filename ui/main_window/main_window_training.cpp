// The window's training side: the Train dock beside the editor (settings and run buttons), the
// Training tab (status, curves, runs), and the network locked while a run trains. The run itself is
// app/gui's TrainingController, which listens to the Train panel and feeds the dashboard.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLayout>
#include <QScreen>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "ui/course/course_panel.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/network_view.h"
#include "ui/editor/palette_dock.h"
#include "ui/inside/inside_panel.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/window_layout.h"
#include "ui/results/results_panel.h"
#include "ui/start/start_page.h"
#include "ui/try_it/try_it_panel.h"

namespace bps::ui {

void MainWindow::install_training_widgets(std::vector<device::DeviceDescription> devices, std::size_t default_device) {
    dashboard_ = new TrainingDashboard(panels_);
    panels_->insertTab(1, dashboard_, tr("Training"));
    // After a run: what it got wrong, and the network on the learner's own images.
    results_panel_ = new ResultsPanel(panels_);
    panels_->insertTab(2, results_panel_, tr("Results"));
    try_it_panel_ = new TryItPanel(panels_);
    panels_->insertTab(3, try_it_panel_, tr("Try It"));
    // What the network learned: its filters, its activations on an image, live and replayed.
    inside_panel_ = new InsidePanel(panels_);
    panels_->insertTab(4, inside_panel_, tr("Inside"));

    train_panel_ = new TrainPanel(document_, std::move(devices), default_device);
    train_dock_ = new QDockWidget(tr("Train"), this);
    train_dock_->setObjectName(train_dock_name);
    train_dock_->setWidget(train_panel_);
    // Under the inspector rather than tabified with it: the run buttons stay in view while a layer
    // is inspected, and on the other tabs (where the inspector is away) it has the whole height.
    addDockWidget(Qt::RightDockWidgetArea, train_dock_, Qt::Vertical);

    // A network with problems does not train; the panel says why and where to look.
    const auto follow_report = [this] {
        const std::size_t problems = document_->report().problems.size();
        train_panel_->set_train_enabled(
            problems == 0, problems == 0 ? QString()
                                         : tr("The network has %n problem(s): fix them first (see the Problems dock).",
                                              nullptr, static_cast<int>(problems)));
    };
    connect(document_, &NetworkDocument::changed, this, follow_report);
    follow_report();

    // The canvas says why it takes no edits while a run trains.
    lock_banner_ = new QLabel(panels_->widget(0));
    lock_banner_->setObjectName("lockBanner");
    lock_banner_->setWordWrap(true);
    lock_banner_->setStyleSheet(
        "#lockBanner { background: #fff4e5; color: #5f3b00; border-bottom: 1px solid #f28e2b; padding: 6px; }");
    lock_banner_->hide();
    if (auto* page_layout = qobject_cast<QVBoxLayout*>(panels_->widget(0)->layout()))
        page_layout->insertWidget(0, lock_banner_);
    connect(document_, &NetworkDocument::lockChanged, this, &MainWindow::show_lock);
    connect(panels_, &QTabWidget::currentChanged, this, &MainWindow::follow_tab);
    // Queued: after the layout has taken the docks the tab showed, and Qt has widened the window
    // for them if it had to.
    connect(panels_, &QTabWidget::currentChanged, this, &MainWindow::keep_within_screen, Qt::QueuedConnection);
    // Undo and Redo follow the stack, which changes during a run (a new learning rate is an undo
    // step); undoing a network edit would change the network under the run. Queued, so this runs
    // after the actions' own update.
    const auto keep_history_locked = [this] {
        if (!document_->locked()) return;
        undo_->setEnabled(false);
        redo_->setEnabled(false);
    };
    connect(document_->undo_stack(), &QUndoStack::canUndoChanged, this, keep_history_locked, Qt::QueuedConnection);
    connect(document_->undo_stack(), &QUndoStack::canRedoChanged, this, keep_history_locked, Qt::QueuedConnection);
}

// A tab whose docks need more room than the window has widens the window to the right: on a
// laptop's screen that put its right side, the Train dock, past the screen's edge.
void MainWindow::keep_within_screen() {
    if (!isVisible() || isMaximized() || isFullScreen() || !screen()) return;
    if (QLayout* own = layout()) own->activate();
    const QRect frame = frameGeometry();
    const QRect kept = kept_on_screen(frame, screen()->availableGeometry());
    if (kept != frame) move(kept.topLeft());
}

void MainWindow::follow_tab(int index) {
    // The Results, Try It and Inside tabs look at runs: the Train dock gives them its room,
    // which a laptop's screen needs for the matrix, the gallery and one image side by side. The
    // Course and Start tabs train nothing either: an exercise or a template opens on the Network
    // tab, where the dock is.
    const QWidget* shown = panels_->widget(index);
    const bool inspecting =
        shown && (shown == results_panel_ || shown == try_it_panel_ || shown == inside_panel_ ||
                  (course_panel_ && shown == course_panel_) || (start_page_ && shown == start_page_));
    if (inspecting && train_dock_->isVisible()) {
        train_dock_away_ = true;
        train_dock_->hide();
    } else if (!inspecting && train_dock_away_) {
        train_dock_away_ = false;
        train_dock_->show();
    }
    if (index == 0) {
        for (QDockWidget* dock : docks_away_) dock->show();
        docks_away_.clear();
        return;
    }
    if (!docks_away_.isEmpty()) return;  // already away
    for (const char* name : {palette_dock_name, inspector_dock_name, problems_dock_name, summary_dock_name})
        if (auto* dock = findChild<QDockWidget*>(name, Qt::FindDirectChildrenOnly); dock && dock->isVisible()) {
            docks_away_.append(dock);
            dock->hide();
        }
}

void MainWindow::show_lock(bool locked) {
    lock_banner_->setText(document_->lock_reason());
    lock_banner_->setVisible(locked);
    view_->setInteractive(!locked);
    palette_->setEnabled(!locked);
    inspector_->setEnabled(!locked);
    for (QAction* action : {cut_, paste_, delete_, tidy_}) action->setEnabled(!locked);
    undo_->setEnabled(!locked && document_->undo_stack()->canUndo());
    redo_->setEnabled(!locked && document_->undo_stack()->canRedo());
}

void MainWindow::show_dashboard() {
    panels_->setCurrentWidget(dashboard_);
}

}  // namespace bps::ui
