#include "ui/main_window/window_layout.h"

#include <QLabel>
#include <QMainWindow>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <algorithm>

namespace bps::ui {

namespace {

const char* const geometry_key = "window/geometry";
const char* const state_key = "window/state";

}  // namespace

QRect first_start_geometry(const QRect& available, const QSize& needed) {
    const int width = std::min(available.width(), std::max(available.width() * 4 / 5, needed.width()));
    const int height = std::min(available.height(), std::max(available.height() * 4 / 5, needed.height()));
    return {available.x() + (available.width() - width) / 2, available.y() + (available.height() - height) / 2, width,
            height};
}

QRect kept_on_screen(const QRect& frame, const QRect& available) {
    QRect kept = frame;
    if (kept.right() > available.right()) kept.moveRight(available.right());
    if (kept.bottom() > available.bottom()) kept.moveBottom(available.bottom());
    if (kept.left() < available.left()) kept.moveLeft(available.left());
    if (kept.top() < available.top()) kept.moveTop(available.top());
    return kept;
}

bool restore_window_layout(QMainWindow& window, const QSettings& settings) {
    const QByteArray geometry = settings.value(geometry_key).toByteArray();
    if (geometry.isEmpty() || !window.restoreGeometry(geometry)) return false;
    window.restoreState(settings.value(state_key).toByteArray(), window_state_version);
    return true;
}

void save_window_layout(const QMainWindow& window, QSettings& settings) {
    settings.setValue(geometry_key, window.saveGeometry());
    settings.setValue(state_key, window.saveState(window_state_version));
}

namespace {

// A page counts towards the tab widget's minimum only while it is shown: the stacked pages'
// minimum is the largest of those whose size policy is not Ignored.
void size_pages_for(QTabWidget& tabs, int current) {
    for (int index = 0; index < tabs.count(); ++index) {
        QWidget* page = tabs.widget(index);
        const QSizePolicy::Policy policy = index == current ? QSizePolicy::Preferred : QSizePolicy::Ignored;
        page->setSizePolicy(policy, policy);
    }
}

}  // namespace

void fit_small_screens(QMainWindow& window, QTabWidget& tabs) {
    size_pages_for(tabs, tabs.currentIndex());
    QObject::connect(&tabs, &QTabWidget::currentChanged, &tabs,
                     [&tabs](int current) { size_pages_for(tabs, current); });
    if (QStatusBar* bar = window.statusBar())
        for (QLabel* label : bar->findChildren<QLabel*>()) {
            label->setMinimumWidth(0);
            label->setSizePolicy(QSizePolicy::Ignored, label->sizePolicy().verticalPolicy());
        }
}

}  // namespace bps::ui
