#pragma once
// Where the studio's Save and Export dialogs open: the open project's folder, or the user's
// Documents for a project never saved, never the hidden folder where the studio keeps its own
// data (an unsaved project's runs). The main window puts its project's folder in a property; a
// widget asking finds it through its parents, so panels need no hook of their own.
#include <QString>

class QWidget;

namespace bps::ui {

// The property the main window sets to its project's folder (empty for a project never saved).
inline constexpr const char* dialog_folder_property = "dialogFolder";

// The folder a dialog opened from `widget` starts in: the nearest parent's dialog_folder_property
// when set, else QStandardPaths::DocumentsLocation.
QString dialog_folder(const QWidget* widget);
// `file_name` in that folder: the path to suggest in a Save dialog.
QString in_dialog_folder(const QWidget* widget, const QString& file_name);

}  // namespace bps::ui
