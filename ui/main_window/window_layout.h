#pragma once
// Where the window sits and how its docks are arranged: the first start's size (about 80% of
// the screen, centred, instead of whatever the widgets ask for), and the geometry and dock state
// kept in QSettings between starts. Docks are found by their objectName, so the real docks that
// replace the placeholders keep the learner's arrangement.
#include <QByteArray>
#include <QRect>

class QMainWindow;
class QSettings;
class QTabWidget;

namespace bps::ui {

// The version passed to QMainWindow::saveState/restoreState: bumped when the docks change so much
// that an old arrangement would mislead.
constexpr int window_state_version = 2;  // 2: the Train dock

// A rectangle 80% of `available` in each direction, or as large as `needed` (the window's minimum,
// which Qt enforces whatever is asked) where that is more, never larger than `available`; centred
// in it. Without the minimum, a laptop's 1280x720 screen got a window wider than itself, placed off
// its right edge.
QRect first_start_geometry(const QRect& available, const QSize& needed = {});

// Where a window's frame goes when it grew past the screen's edge (a tab whose docks need more
// room than the window had makes Qt widen it to the right and down): moved back inside
// `available`, as little as it takes; a frame larger than `available` keeps its top left corner on
// the screen. A frame already inside is returned as it is.
QRect kept_on_screen(const QRect& frame, const QRect& available);

// Restores the geometry and dock state saved by save_window_layout; false (and nothing changed)
// when none was saved: the caller then places the window as for a first start.
bool restore_window_layout(QMainWindow& window, const QSettings& settings);
void save_window_layout(const QMainWindow& window, QSettings& settings);

// Lets the window shrink to a laptop's 1280x720 screen: the window's minimum follows the tab shown,
// not the widest of all tabs (Compare Devices' alone asked for 922 px, which with the Network
// tab's docks made the window at least 1286 px wide), and the status bar's labels give up width
// (their text is cut, not the window). Call once the tabs and the status bar are built.
void fit_small_screens(QMainWindow& window, QTabWidget& tabs);

}  // namespace bps::ui
