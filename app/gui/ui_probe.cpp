#include "app/gui/ui_probe.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileSystemWatcher>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPixmap>
#include <QScreen>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>

namespace bps::app {

namespace {

constexpr int poll_ms = 200;
constexpr int most_rows = 300;  // rows of one view described; enough for every list the walkthrough reads

QJsonObject rect_json(const QRect& rect) {
    return QJsonObject{{"x", rect.x()}, {"y", rect.y()}, {"w", rect.width()}, {"h", rect.height()}};
}

QRect global_rect(const QWidget* widget) {
    return QRect(widget->mapToGlobal(QPoint(0, 0)), widget->size());
}

QString plain(QString text) {
    return text.remove('&');
}

// The text a learner reads on the widget, where it has one.
QString text_of(const QWidget* widget) {
    if (const auto* label = qobject_cast<const QLabel*>(widget)) return label->text();
    if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) return plain(button->text());
    if (const auto* edit = qobject_cast<const QLineEdit*>(widget)) return edit->text();
    if (const auto* combo = qobject_cast<const QComboBox*>(widget)) return combo->currentText();
    if (const auto* spin = qobject_cast<const QAbstractSpinBox*>(widget)) return spin->text();
    if (widget->isWindow()) return widget->windowTitle();
    return {};
}

// Inside a scroll area's viewport a widget may lie outside the window and still be reachable.
bool inside_scrolled_view(const QWidget* widget) {
    for (const QWidget* parent = widget->parentWidget(); parent; parent = parent->parentWidget())
        if (const auto* area = qobject_cast<const QAbstractScrollArea*>(parent))
            if (area->viewport()->isAncestorOf(widget)) return true;
    return false;
}

QJsonObject view_json(const QAbstractItemView* view) {
    QJsonObject result;
    const QAbstractItemModel* model = view->model();
    if (!model) return result;
    QJsonArray columns;
    const QHeaderView* header = nullptr;
    if (const auto* table = qobject_cast<const QTableView*>(view)) header = table->horizontalHeader();
    if (const auto* tree = qobject_cast<const QTreeView*>(view)) header = tree->header();
    for (int column = 0; column < model->columnCount(); ++column)
        columns.append(QJsonObject{{"title", model->headerData(column, Qt::Horizontal).toString()},
                                   {"hidden", header ? header->isSectionHidden(column) : false}});
    QJsonArray rows;
    const auto add_rows = [&](const QModelIndex& parent, int depth, auto& self) -> void {
        for (int row = 0; row < model->rowCount(parent) && rows.size() < most_rows; ++row) {
            const QModelIndex index = model->index(row, 0, parent);
            QJsonArray cells;
            for (int column = 0; column < model->columnCount(parent); ++column)
                cells.append(model->index(row, column, parent).data().toString());
            const QRect visual = view->visualRect(index);
            QJsonObject entry{{"text", index.data().toString()},
                              {"cells", cells},
                              {"tooltip", index.data(Qt::ToolTipRole).toString()},
                              {"depth", depth},
                              {"shown", visual.isValid() && view->viewport()->rect().intersects(visual)}};
            if (visual.isValid())
                entry["rect"] = rect_json(QRect(view->viewport()->mapToGlobal(visual.topLeft()), visual.size()));
            rows.append(entry);
            if (depth < 2 && model->hasChildren(index)) self(index, depth + 1, self);
        }
    };
    add_rows(QModelIndex(), 0, add_rows);
    result["columns"] = columns;
    result["rows"] = rows;
    return result;
}

QJsonArray menu_json(const QWidget* menu_widget) {
    QJsonArray items;
    if (const auto* bar = qobject_cast<const QMenuBar*>(menu_widget)) {
        for (QAction* action : bar->actions())
            if (action->isVisible())
                items.append(
                    QJsonObject{{"text", plain(action->text())},
                                {"rect", rect_json(QRect(bar->mapToGlobal(bar->actionGeometry(action).topLeft()),
                                                         bar->actionGeometry(action).size()))}});
    } else if (const auto* menu = qobject_cast<const QMenu*>(menu_widget)) {
        for (QAction* action : menu->actions())
            if (action->isVisible() && !action->isSeparator())
                items.append(
                    QJsonObject{{"text", plain(action->text())},
                                {"enabled", action->isEnabled()},
                                {"rect", rect_json(QRect(menu->mapToGlobal(menu->actionGeometry(action).topLeft()),
                                                         menu->actionGeometry(action).size()))}});
    }
    return items;
}

// A dock tabified behind another is "visible" to Qt but moved out of sight: the learner sees its tab only.
bool behind_another_dock(const QWidget* widget) {
    for (; widget; widget = widget->parentWidget())
        if (const auto* dock = qobject_cast<const QDockWidget*>(widget)) {
            const auto* main = qobject_cast<const QMainWindow*>(dock->parentWidget());
            return main && !main->tabifiedDockWidgets(const_cast<QDockWidget*>(dock)).isEmpty() &&
                   dock->visibleRegion().isEmpty();
        }
    return false;
}

// The docks (and their scroll areas) that show a horizontal scroll bar.
QJsonArray sideways_scrolling(const QWidget* window) {
    QJsonArray names;
    for (const QDockWidget* dock : window->findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || behind_another_dock(dock)) continue;
        for (const QAbstractScrollArea* area : dock->findChildren<QAbstractScrollArea*>())
            if (area->isVisible() && area->horizontalScrollBar()->isVisible() &&
                !qobject_cast<const QAbstractItemView*>(area))  // a table's columns may scroll
                names.append(
                    dock->objectName() + "/" +
                    (area->objectName().isEmpty() ? QString(area->metaObject()->className()) : area->objectName()));
    }
    return names;
}

// A tab widget's tabs, each with its text and where it is on the screen.
QJsonArray tabs_json(const QTabWidget* tabs) {
    QJsonArray list;
    const QTabBar* bar = tabs->tabBar();
    for (int index = 0; index < tabs->count(); ++index)
        list.append(QJsonObject{
            {"text", plain(tabs->tabText(index))},
            {"rect", rect_json(QRect(bar->mapToGlobal(bar->tabRect(index).topLeft()), bar->tabRect(index).size()))}});
    return list;
}

}  // namespace

UiProbe* UiProbe::from_environment(QObject* parent) {
    const QString folder = qEnvironmentVariable("BACKPROP_STUDIO_PROBE");
    return folder.isEmpty() ? nullptr : new UiProbe(folder, parent);
}

UiProbe::UiProbe(const QString& folder, QObject* parent)
    : QObject(parent), folder_(folder), watcher_(new QFileSystemWatcher(this)), poll_(new QTimer(this)) {
    folder_.mkpath(".");
    watcher_->addPath(folder_.absolutePath());
    connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &UiProbe::answer_requests);
    connect(poll_, &QTimer::timeout, this, &UiProbe::answer_requests);
    poll_->start(poll_ms);
}

QByteArray UiProbe::state_json() {
    QJsonArray windows;
    QJsonArray widgets;
    QJsonObject views;
    QJsonObject plots;
    QJsonObject state;
    for (QWidget* top : QApplication::topLevelWidgets()) {
        if (!top->isVisible()) continue;
        QJsonObject window{
            {"name", top->objectName()},
            {"class", top->metaObject()->className()},
            {"title", top->windowTitle()},
            {"rect", rect_json(global_rect(top))},
            {"minimum", QJsonObject{{"w", top->minimumSizeHint().width()}, {"h", top->minimumSizeHint().height()}}},
            {"modal", top == QApplication::activeModalWidget()}};
        if (auto* box = qobject_cast<QMessageBox*>(top)) window["text"] = box->text();
        if (qobject_cast<QMenu*>(top)) window["items"] = menu_json(top);
        if (auto* main = qobject_cast<QMainWindow*>(top)) {
            window["menubar"] = menu_json(main->menuBar());
            window["status"] = main->statusBar()->currentMessage();
            window["sideways"] = sideways_scrolling(main);
            if (auto* tabs = main->findChild<QTabWidget*>("panels")) {
                window["tab"] = plain(tabs->tabText(tabs->currentIndex()));
                window["tabs"] = tabs_json(tabs);
            }
        }
        windows.append(window);
        QList<QWidget*> all = top->findChildren<QWidget*>();
        all.prepend(top);
        for (QWidget* widget : all) {
            // A dialog's buttons often have no name: the walkthrough finds them by their text.
            const bool dialog_button = !qobject_cast<QMainWindow*>(top) && qobject_cast<QAbstractButton*>(widget);
            if (!widget->isVisible() || (widget->objectName().isEmpty() && !dialog_button) ||
                widget->objectName().startsWith("qt_") || behind_another_dock(widget))
                continue;
            QJsonObject entry{{"name", widget->objectName()},   {"class", widget->metaObject()->className()},
                              {"window", top->objectName()},    {"rect", rect_json(global_rect(widget))},
                              {"enabled", widget->isEnabled()}, {"scrolled", inside_scrolled_view(widget)}};
            if (const QString text = text_of(widget); !text.isEmpty()) entry["text"] = text;
            if (!widget->toolTip().isEmpty()) entry["tooltip"] = widget->toolTip();
            if (const auto* button = qobject_cast<const QAbstractButton*>(widget); button && button->isCheckable())
                entry["checked"] = button->isChecked();
            if (const auto* label = qobject_cast<const QLabel*>(widget))  // the room its text needs
                entry["needs"] =
                    QJsonObject{{"w", label->minimumSizeHint().width()},
                                {"h", label->heightForWidth(label->width()) > 0 ? label->heightForWidth(label->width())
                                                                                : label->sizeHint().height()}};
            if (const auto* tabs = qobject_cast<const QTabWidget*>(widget)) {  // a tab widget inside a tab
                entry["tab"] = plain(tabs->tabText(tabs->currentIndex()));
                entry["tabs"] = tabs_json(tabs);
            }
            widgets.append(entry);
            if (const auto* view = qobject_cast<const QAbstractItemView*>(widget))
                views[widget->objectName()] = view_json(view);
            if (const auto* plot = qobject_cast<const QCustomPlot*>(widget)) {
                QJsonArray points;
                for (int graph = 0; graph < plot->graphCount(); ++graph) points.append(plot->graph(graph)->dataCount());
                plots[widget->objectName()] = QJsonObject{{"points", points}};
            }
        }
    }
    if (const QScreen* screen = QGuiApplication::primaryScreen()) state["screen"] = rect_json(screen->geometry());
    state["windows"] = windows;
    state["widgets"] = widgets;
    state["views"] = views;
    state["plots"] = plots;
    return QJsonDocument(state).toJson(QJsonDocument::Indented);
}

void UiProbe::answer_requests() {
    for (const QString& request : folder_.entryList({"request-*"}, QDir::Files)) {
        if (answered_.contains(request)) continue;
        answered_.insert(request);
        QFile file(folder_.filePath(request));
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QString command = QString::fromUtf8(file.readAll()).trimmed();
        file.close();
        const QString id = request.mid(QString("request-").size());
        QString failure;
        if (command.startsWith("shot ")) {
            const QString path = command.mid(5);
            QScreen* screen = QGuiApplication::primaryScreen();
            if (!screen || !screen->grabWindow(0).save(path, "PNG")) failure = "could not save " + path;
        }
        QByteArray answer = state_json();
        if (!failure.isEmpty()) answer = QJsonDocument(QJsonObject{{"failure", failure}}).toJson();
        const QString partial = folder_.filePath("partial-" + id);
        QFile out(partial);
        if (!out.open(QIODevice::WriteOnly) || out.write(answer) != answer.size()) continue;
        out.close();
        QFile::rename(partial, folder_.filePath("state-" + id + ".json"));
        QFile::remove(folder_.filePath(request));
    }
}

}  // namespace bps::app
