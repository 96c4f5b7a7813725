// The window's course side: the Course tab, the Exercise dock beside the canvas, and pointing at
// what a hint or a check result names (a node, a dock, a tab, a Train setting). The course itself
// (reading it, checking, progress) is app/gui's CourseController.
#include <QAction>
#include <QDockWidget>
#include <QGraphicsColorizeEffect>
#include <QMenu>
#include <QPointer>
#include <QTabWidget>
#include <QTimer>

#include "ui/course/course_panel.h"
#include "ui/course/exercise_dock.h"
#include "ui/dashboard/train_panel.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/devices/comparison_panel.h"
#include "ui/devices/device_panel.h"
#include "ui/document/network_document.h"
#include "ui/editor/inspector_dock.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/network_view.h"
#include "ui/main_window/main_window.h"
#include "ui/main_window/project_recovery.h"
#include "ui/results/results_panel.h"
#include "ui/try_it/try_it_panel.h"

namespace bps::ui {

namespace {

constexpr int highlight_ms = 1500;  // long enough to be seen, short enough not to stay in the way

}  // namespace

void MainWindow::install_course_widgets() {
    course_panel_ = new CoursePanel(panels_);
    panels_->addTab(course_panel_, tr("Course"));
    // Joins the window when an exercise first opens (show_exercise_dock): a dock added now, even
    // hidden, fixes the window's minimum size before start() places the window for the screen.
    exercise_dock_ = new ExerciseDock(this);
    exercise_dock_->hide();
    connect(exercise_dock_, &ExerciseDock::pointRequested, this, [this](const QString& where) { point_at(where); });
    // A project replaced another way (New, Open, recovery) is no longer the exercise's starter.
    // A project opened before the window shows is what the learner asked for, not the course.
    connect(document_, &NetworkDocument::replaced, this, [this] {
        untitled_name_.clear();
        offer_course_ = false;
    });
}

bool MainWindow::new_project_from(project::Project project, const QString& title) {
    if (!may_discard_changes()) return false;
    document_->reset(std::move(project));
    recovery_->discard();
    untitled_name_ = title;  // after reset, whose replaced() clears it
    update_title();
    return true;
}

void MainWindow::show_exercise_dock() {
    if (!exercise_dock_added_) {
        // Beside the canvas, in front of the Inspector's place: the window gets no wider, and the
        // instructions stay in view on the other tabs, where the Inspector goes away.
        exercise_dock_added_ = true;
        addDockWidget(Qt::RightDockWidgetArea, exercise_dock_);
        tabifyDockWidget(inspector_, exercise_dock_);
        QAction* toggle = exercise_dock_->toggleViewAction();
        toggle->setObjectName(QString(ExerciseDock::dock_name) + "Toggle");
        const QList<QAction*> items = view_menu_->actions();
        const qsizetype reset_at = items.indexOf(reset_layout_);
        view_menu_->insertAction(reset_at > 0 ? items[reset_at - 1] : reset_layout_, toggle);  // with the others
        // The instructions get most of the height; the Train dock below keeps its buttons in view.
        resizeDocks({exercise_dock_, train_dock_}, {height() * 3 / 5, height() * 2 / 5}, Qt::Vertical);
    }
    panels_->setCurrentIndex(0);
    exercise_dock_->show();
    exercise_dock_->raise();
}

bool MainWindow::point_at(const QString& where) {
    const QString kind = where.section(':', 0, 0);
    const QString name = where.section(':', 1);
    if (kind == "node") {
        if (!scene_->node_item(name)) return false;
        panels_->setCurrentIndex(0);
        scene_->select_layers({name});
        view_->centerOn(scene_->node_item(name));
        return true;
    }
    if (kind == "dock") {
        const char* dock_name = name == "palette"     ? palette_dock_name
                                : name == "inspector" ? inspector_dock_name
                                : name == "train"     ? train_dock_name
                                : name == "problems"  ? problems_dock_name
                                : name == "summary"   ? summary_dock_name
                                                      : nullptr;
        auto* dock = dock_name ? findChild<QDockWidget*>(dock_name, Qt::FindDirectChildrenOnly) : nullptr;
        if (!dock) return false;
        if (dock != train_dock_) panels_->setCurrentIndex(0);  // the editor's docks live with the Network tab
        dock->show();
        dock->raise();
        highlight(dock);
        return true;
    }
    if (kind == "tab") {
        QWidget* tab = name == "network"    ? panels_->widget(0)
                       : name == "training" ? static_cast<QWidget*>(dashboard_)
                       : name == "results"  ? static_cast<QWidget*>(results_panel_)
                       : name == "try_it"   ? static_cast<QWidget*>(try_it_panel_)
                       : name == "devices"  ? static_cast<QWidget*>(device_panel_)
                       : name == "compare"  ? static_cast<QWidget*>(comparison_panel_)
                       : name == "datasets" ? static_cast<QWidget*>(dataset_panel_)
                                            : nullptr;
        if (!tab) return false;
        panels_->setCurrentWidget(tab);
        return true;
    }
    if (kind == "control") {
        QWidget* control = train_panel_->control(name);
        if (!control) return false;
        if (panels_->currentWidget() == results_panel_ || panels_->currentWidget() == try_it_panel_)
            panels_->setCurrentIndex(0);  // those tabs send the Train dock away
        train_dock_->show();
        train_dock_->raise();
        control->setFocus(Qt::OtherFocusReason);
        highlight(control);
        return true;
    }
    return false;
}

// A plain colour wash for a moment: the learner's eye finds the dock or the setting named.
void MainWindow::highlight(QWidget* widget) {
    if (widget->graphicsEffect()) return;  // already highlighted (or it has an effect of its own)
    auto* effect = new QGraphicsColorizeEffect(widget);
    effect->setColor(QColor(0xf2, 0x8e, 0x2b));
    effect->setStrength(0.6);
    widget->setGraphicsEffect(effect);
    QTimer::singleShot(highlight_ms, widget, [target = QPointer<QWidget>(widget), effect] {
        if (target && target->graphicsEffect() == effect) target->setGraphicsEffect(nullptr);
    });
}

}  // namespace bps::ui
